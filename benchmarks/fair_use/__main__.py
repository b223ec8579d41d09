from benchmarks.fair_use.cli import main

raise SystemExit(main())
