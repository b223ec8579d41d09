from benchmarks.client_forms.cli import main

raise SystemExit(main())
