"""Where the project's own files are: the one place that turns this package's location into paths.

Package data ships in the wheel: ``CONFIG_DIR`` (settings), ``RESOURCES_DIR`` (index templates, ingest and
search pipelines as JSON) and ``CONNECTORS_DIR`` (ml-commons connector blueprints), so an installed package
can render and apply everything. ``REPOSITORY_ROOT`` is the checkout the package runs from: what is read
through it (model_artifacts/, .cache/, testsets/) exists only in a checkout.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

PACKAGE_DIR: Final = Path(__file__).resolve().parent
CONFIG_DIR: Final = PACKAGE_DIR / "config"
RESOURCES_DIR: Final = PACKAGE_DIR / "resources"
CONNECTORS_DIR: Final = PACKAGE_DIR / "mlcommons" / "connectors"
REPOSITORY_ROOT: Final = PACKAGE_DIR.parent
