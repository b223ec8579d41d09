from control_plane.benchmarks.clinical_relevance.cli import main

raise SystemExit(main())
