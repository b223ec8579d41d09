from benchmarks.rerank_latency.cli import main

raise SystemExit(main())
