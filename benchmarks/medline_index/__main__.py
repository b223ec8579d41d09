from benchmarks.medline_index.cli import main

raise SystemExit(main())
