import sys

from benchmarks.pipeline_load.cli import main

sys.exit(main())
