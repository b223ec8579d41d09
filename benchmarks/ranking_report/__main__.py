from benchmarks.ranking_report.cli import main

raise SystemExit(main())
