from control_plane.benchmarks.clinical_pipelines.cli import main

raise SystemExit(main())
