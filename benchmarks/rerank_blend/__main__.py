from benchmarks.rerank_blend.cli import main

raise SystemExit(main())
