"""A toy retrieval component, defined in the test suite only: the title alone by BM25 (OpenSearch
analyses its text, so it needs no model). ``with_title`` adds it to ``COMPONENTS`` for one test; the
unit and integration tests see it flow through every path with no other change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from control_plane.query.components import COMPONENTS, ClauseInput, RetrievalComponent


def _title_clause(made_from: ClauseInput) -> dict[str, Any]:
    return {"match": {"title_path": {"query": made_from.text}}}


def _name_title(clause: dict[str, Any], name: str) -> dict[str, Any]:
    clause["match"]["title_path"]["_name"] = name
    return clause


TITLE = RetrievalComponent("title", None, _title_clause, _title_clause, _name_title)


@pytest.fixture
def with_title(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(COMPONENTS, TITLE.name, TITLE)
    yield
