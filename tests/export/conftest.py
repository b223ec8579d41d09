"""The export suite imports the repository's model_artifacts tooling (not an installed package)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
