from benchmarks.fusion_stability.cli import main

raise SystemExit(main())
