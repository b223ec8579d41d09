from control_plane.benchmarks.search_scale.cli import main

raise SystemExit(main())
