from control_plane.benchmarks.search_latency.cli import main

raise SystemExit(main())
