from benchmarks.fusion_grid.cli import main

raise SystemExit(main())
