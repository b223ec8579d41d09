from benchmarks.search_latency.cli import main

raise SystemExit(main())
