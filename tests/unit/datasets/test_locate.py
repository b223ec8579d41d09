"""Where datasets are found: $BIOHYBRID_DATASETS_DIR, then the repository's datasets/, then the shared
folder; the demo corpus ships in the repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.datasets import locate
from control_plane.datasets.locate import (
    DATASETS_DIR_ENV_VAR,
    FETCHABLE,
    DatasetsNotFoundError,
    dataset_folder,
    dataset_roots,
    find_dataset,
)
from control_plane.ingestion.parsers import dataset_files
from control_plane.locations import REPOSITORY_ROOT


def test_the_demo_corpus_ships_in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATASETS_DIR_ENV_VAR, raising=False)
    assert dataset_folder("pmc") == REPOSITORY_ROOT / "datasets" / "pmc"
    assert dataset_folder("clinicaltrials") == REPOSITORY_ROOT / "datasets" / "clinicaltrials"
    assert len(dataset_files("pmc")) == 8 and len(dataset_files("ctgov")) == 76
    assert (REPOSITORY_ROOT / "datasets" / "README.md").is_file()


def test_every_evaluation_corpus_is_found() -> None:
    """make test needs them: fetched into datasets/, beside the checkout, or pointed to."""
    missing = [name for name in FETCHABLE if find_dataset(name) is None]
    assert missing == [], f"run `biohybrid datasets fetch` or set {DATASETS_DIR_ENV_VAR}"


def test_the_variable_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pmc").mkdir()
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path))
    assert dataset_roots()[0] == tmp_path
    assert dataset_folder("pmc") == tmp_path / "pmc"
    # What it does not hold is still found in the repository.
    assert dataset_folder("clinicaltrials") == REPOSITORY_ROOT / "datasets" / "clinicaltrials"


def test_a_variable_that_is_not_a_folder_is_refused_not_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "absent"))
    with pytest.raises(DatasetsNotFoundError, match=f"{DATASETS_DIR_ENV_VAR}=.*absent is not a folder"):
        dataset_folder("pmc")


def test_found_nowhere_names_both_ways(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATASETS_DIR_ENV_VAR, raising=False)
    monkeypatch.setattr(locate, "REPOSITORY_DATASETS", tmp_path / "repository")
    monkeypatch.setattr(locate, "SHARED_DATASETS", tmp_path / "shared")
    with pytest.raises(DatasetsNotFoundError) as raised:
        dataset_folder("nfcorpus")
    message = str(raised.value)
    assert "`biohybrid datasets fetch nfcorpus`" in message and f"set {DATASETS_DIR_ENV_VAR}" in message
    assert str(tmp_path / "repository") in message and str(tmp_path / "shared") in message
    with pytest.raises(DatasetsNotFoundError) as shipped:
        dataset_folder("pmc")
    assert "fetch" not in str(shipped.value)  # the demo corpus has no public source to fetch from
