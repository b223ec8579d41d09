from benchmarks.clinical_understanding.cli import main

raise SystemExit(main())
