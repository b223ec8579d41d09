from benchmarks.search_scale.cli import main

raise SystemExit(main())
