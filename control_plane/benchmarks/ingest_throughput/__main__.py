from control_plane.benchmarks.ingest_throughput.cli import main

raise SystemExit(main())
