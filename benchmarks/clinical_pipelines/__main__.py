from benchmarks.clinical_pipelines.cli import main

raise SystemExit(main())
