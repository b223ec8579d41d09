"""Shared fixtures: the real datasets (parsed once per session) and the real MiniLM token counter."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.datasets_root import datasets_root
from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import dataset_files, iter_documents
from control_plane.ingestion.tokens import HuggingFaceTokenCounter, minilm_token_counter


@pytest.fixture(scope="session")
def datasets() -> Path:
    try:
        return datasets_root()
    except FileNotFoundError as error:
        pytest.skip(str(error))


def _parse_all(dataset: str, root: Path) -> list[Document]:
    items = list(iter_documents(dataset_files(dataset, root)))
    errors = [item for item in items if isinstance(item, ParseError)]
    assert not errors, errors
    return [item for item in items if isinstance(item, Document)]


@pytest.fixture(scope="session")
def pmc_documents(datasets: Path) -> list[Document]:
    return _parse_all("pmc", datasets)


@pytest.fixture(scope="session")
def ctgov_documents(datasets: Path) -> list[Document]:
    return _parse_all("ctgov", datasets)


@pytest.fixture(scope="session")
def token_counter() -> HuggingFaceTokenCounter:
    return minilm_token_counter()
