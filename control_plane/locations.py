"""Where the project's own files are: the one place that turns this package's location into paths.

``CONFIG_DIR`` ships inside the package (package data). ``REPOSITORY_ROOT`` is the checkout the package
runs from; the resources read through it (search_pipelines/, index_templates/, model_artifacts/) exist
only in a checkout, not in an installed wheel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

PACKAGE_DIR: Final = Path(__file__).resolve().parent
CONFIG_DIR: Final = PACKAGE_DIR / "config"
REPOSITORY_ROOT: Final = PACKAGE_DIR.parent
