from benchmarks.answer_size.cli import main

raise SystemExit(main())
