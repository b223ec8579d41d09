from control_plane.benchmarks.fusion_stability.cli import main

raise SystemExit(main())
