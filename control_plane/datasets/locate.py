"""Where each dataset is found: one lookup for every caller (tests, benchmarks, ingestion, test sets).

A dataset is a folder (``pmc/``, ``clinicaltrials/``, ``medline/``, ``nfcorpus/``, ``scifact/``) looked for,
in order, in ``$BIOHYBRID_DATASETS_DIR``, the repository's ``datasets/`` (the demo corpus ships there and
``biohybrid datasets fetch`` puts the evaluation corpora there) and ``../shared/datasets`` beside the
checkout. So a clone with nothing beside it runs the demo, and a machine holding the corpora elsewhere
points at them instead of downloading them again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT

DATASETS_DIR_ENV_VAR: Final = "BIOHYBRID_DATASETS_DIR"
REPOSITORY_DATASETS: Final = REPOSITORY_ROOT / "datasets"
SHARED_DATASETS: Final = REPOSITORY_ROOT.parent / "shared" / "datasets"
FETCHABLE: Final = ("nfcorpus", "scifact", "medline")
"""The datasets ``biohybrid datasets fetch`` downloads (sources.json); the others ship in the repository."""


class DatasetsNotFoundError(BiohybridError, FileNotFoundError):
    """A dataset is in none of the places looked in: an expected failure on a machine without it (the
    message names both ways out: point at a copy, or fetch it)."""


def dataset_roots(environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The folders searched, in order; a ``$BIOHYBRID_DATASETS_DIR`` that is not a folder is an error,
    not a silent fall-through to the next place."""
    configured = (os.environ if environ is None else environ).get(DATASETS_DIR_ENV_VAR)
    if configured:
        root = Path(configured).expanduser()
        if not root.is_dir():
            raise DatasetsNotFoundError(
                f"{DATASETS_DIR_ENV_VAR}={configured} is not a folder; point it at the folder holding "
                "pmc/, clinicaltrials/, medline/, nfcorpus/ or scifact/, or unset it"
            )
        return (root, REPOSITORY_DATASETS, SHARED_DATASETS)
    return (REPOSITORY_DATASETS, SHARED_DATASETS)


def find_dataset(name: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """The first ``<root>/<name>`` folder of :func:`dataset_roots`, or None."""
    return next((root / name for root in dataset_roots(environ) if (root / name).is_dir()), None)


def dataset_folder(name: str, environ: Mapping[str, str] | None = None) -> Path:
    """The dataset's folder, or :class:`DatasetsNotFoundError` saying where it was looked for and how to
    get it."""
    found = find_dataset(name, environ)
    if found is not None:
        return found
    searched = ", ".join(str(root) for root in dataset_roots(environ))
    fetch = (
        f"fetch it with `biohybrid datasets fetch {name}` (or `make datasets`), or "
        if name in FETCHABLE
        else ""
    )
    raise DatasetsNotFoundError(
        f"dataset {name}/ not found (looked in {searched}); {fetch}set {DATASETS_DIR_ENV_VAR} to a folder "
        f"that holds {name}/"
    )


PROJECT_TESTSETS_DIR_ENV_VAR: Final = "BIOHYBRID_TESTSETS_DIR"


def project_testsets_root() -> Path:
    """The test collections the project builds itself (``testsets/`` in the repository, e.g. clinical/),
    or ``$BIOHYBRID_TESTSETS_DIR``."""
    configured = os.environ.get(PROJECT_TESTSETS_DIR_ENV_VAR)
    return Path(configured) if configured else REPOSITORY_ROOT / "testsets"
