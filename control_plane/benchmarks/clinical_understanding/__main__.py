from control_plane.benchmarks.clinical_understanding.cli import main

raise SystemExit(main())
