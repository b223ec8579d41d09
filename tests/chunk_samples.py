"""A hand-built chunk for unit tests that need one Chunk without parsing a document: every field set to a
small fixed value, the ones a test is about passed in."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from control_plane.ingestion.chunking import Chunk

_SAMPLE = Chunk(
    chunk_id="d:chunk:0",
    doc_id="d",
    text="t",
    start=0,
    end=1,
    token_count=1,
    title_path="T",
    section="summary",
    section_label="Summary",
    intent_hint=None,
    is_table=False,
    facet_json=None,
    table_lines=(),
    table_html=None,
    provenance={},
    tenant_id="default",
    source="ctgov",
    doc_type="clinical_trial",
    publication_date=None,
)


def sample_chunk(**fields: Any) -> Chunk:
    """The sample chunk with ``fields`` replaced."""
    return replace(_SAMPLE, **fields)
