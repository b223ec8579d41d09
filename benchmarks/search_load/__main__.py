from benchmarks.search_load.cli import main

raise SystemExit(main())
