from control_plane.benchmarks.exact_reference.cli import main

raise SystemExit(main())
