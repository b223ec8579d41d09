from benchmarks.query_cache.cli import main

raise SystemExit(main())
