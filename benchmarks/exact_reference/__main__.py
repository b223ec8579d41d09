from benchmarks.exact_reference.cli import main

raise SystemExit(main())
