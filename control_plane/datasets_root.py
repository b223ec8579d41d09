"""Where the shared, read-only datasets live.

One lookup for every caller (tests, benchmarks, ingestion CLIs) so the location is configured in one place:
``$BIOHYBRID_DATASETS_DIR`` when set, else ``../shared/datasets`` relative to the repository root.
"""

from __future__ import annotations

import os
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT

DATASETS_DIR_ENV_VAR = "BIOHYBRID_DATASETS_DIR"
_REPO_ROOT = REPOSITORY_ROOT


class DatasetsNotFoundError(BiohybridError, FileNotFoundError):
    """The shared datasets folder is not where the configuration says: an expected failure on a machine
    without it (the message says what to set)."""


def datasets_root() -> Path:
    """Return the datasets folder, raising a clear error naming the env var when it is missing."""
    configured = os.environ.get(DATASETS_DIR_ENV_VAR)
    root = Path(configured) if configured else _REPO_ROOT.parent / "shared" / "datasets"
    if not root.is_dir():
        raise DatasetsNotFoundError(
            f"datasets folder {root} does not exist; set {DATASETS_DIR_ENV_VAR} to the folder that holds "
            "pmc/, clinicaltrials/, medline/, nfcorpus/ and scifact/"
        )
    return root


PROJECT_TESTSETS_DIR_ENV_VAR = "BIOHYBRID_TESTSETS_DIR"


def project_testsets_root() -> Path:
    """The test collections the project builds itself (``testsets/`` in the repository, e.g. clinical/),
    or ``$BIOHYBRID_TESTSETS_DIR``."""
    configured = os.environ.get(PROJECT_TESTSETS_DIR_ENV_VAR)
    return Path(configured) if configured else _REPO_ROOT / "testsets"
