from benchmarks.clinical_relevance.cli import main

raise SystemExit(main())
