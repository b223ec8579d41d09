from benchmarks.query_type_weights.cli import main

raise SystemExit(main())
