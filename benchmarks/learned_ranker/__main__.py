from benchmarks.learned_ranker.cli import main

raise SystemExit(main())
