from benchmarks.sparse_index.cli import main

raise SystemExit(main())
