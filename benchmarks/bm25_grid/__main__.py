from benchmarks.bm25_grid.cli import main

raise SystemExit(main())
