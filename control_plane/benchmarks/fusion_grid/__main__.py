from control_plane.benchmarks.fusion_grid.cli import main

raise SystemExit(main())
