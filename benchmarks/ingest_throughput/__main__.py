from benchmarks.ingest_throughput.cli import main

raise SystemExit(main())
