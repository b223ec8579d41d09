"""Shared fixtures: the real datasets (parsed once per session), PDFs typeset from PMC articles
(tests/pdf_samples.py) and the real MiniLM token counter."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdf_samples import TypesetPdf, single_column_pdf, two_column_pdf

from control_plane.datasets.locate import find_dataset
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import dataset_files, iter_documents
from control_plane.ingestion.tokens import HuggingFaceTokenCounter, minilm_token_counter


@pytest.fixture(scope="session")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder holding every dataset found (links to wherever each is: the repository's datasets/, the
    shared folder, $BIOHYBRID_DATASETS_DIR); tests/unit/datasets/ says which are missing."""
    root = tmp_path_factory.mktemp("datasets")
    for name in ("pmc", "clinicaltrials", "medline", "nfcorpus", "scifact"):
        if (found := find_dataset(name)) is not None:
            (root / name).symlink_to(found, target_is_directory=True)
    return root


def _parse_all(dataset: str, root: Path) -> list[Document]:
    return _parse_all_files(dataset_files(dataset, root))


def _parse_all_files(files: list[Path]) -> list[Document]:
    items = list(iter_documents(files))
    errors = [item for item in items if isinstance(item, ParseError)]
    assert not errors, errors
    return [item for item in items if isinstance(item, Document)]


@pytest.fixture(scope="session")
def pmc_documents(datasets: Path) -> list[Document]:
    return _parse_all("pmc", datasets)


@pytest.fixture(scope="session")
def ctgov_documents(datasets: Path) -> list[Document]:
    return _parse_all("ctgov", datasets)


SINGLE_COLUMN_SOURCE = "PMC1790863"
"""Nested sections under numbered pages (two pages, one column)."""
TWO_COLUMN_SOURCE = "PMC2329613"
"""A table small enough for one column, and nested sections (two pages, two columns)."""


@pytest.fixture(scope="session")
def typeset_pdfs(pmc_documents: list[Document], tmp_path_factory: pytest.TempPathFactory) -> list[TypesetPdf]:
    """The single-column and the two-column PDF, typeset from two PMC articles."""
    folder = tmp_path_factory.mktemp("pdfs")
    by_id = {document.doc_id: document for document in pmc_documents}
    return [
        single_column_pdf(by_id[SINGLE_COLUMN_SOURCE], folder / "single-column.pdf"),
        two_column_pdf(by_id[TWO_COLUMN_SOURCE], folder / "two-column.pdf"),
    ]


@pytest.fixture(scope="session")
def pdf_documents(typeset_pdfs: list[TypesetPdf]) -> list[Document]:
    return _parse_all_files([typeset.path for typeset in typeset_pdfs])


@pytest.fixture(scope="session")
def token_counter() -> HuggingFaceTokenCounter:
    return minilm_token_counter()
