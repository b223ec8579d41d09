from control_plane.benchmarks.rerank_latency.cli import main

raise SystemExit(main())
