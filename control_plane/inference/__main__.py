"""``python -m control_plane.inference``: run the model inference service."""

import sys

from control_plane.inference.cli import main

sys.exit(main())
