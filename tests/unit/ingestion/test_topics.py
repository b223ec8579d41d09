"""A record's declared topics, hand-made: what each source's metadata names, in order, each once, on every
chunk; a source without any keeps the chunk documents (and content hashes) it had."""

from __future__ import annotations

from dataclasses import replace

from control_plane.ingestion.chunking import Chunk, content_hash
from control_plane.ingestion.documents import Document
from control_plane.ingestion.topics import record_topics


def _document(metadata: dict[str, object]) -> Document:
    return Document(
        doc_id="NCT00000001",
        title="A trial",
        source="ctgov",
        doc_type="clinical_trial",
        url=None,
        publication_date=None,
        sections=(),
        tables=(),
        text="A trial",
        metadata=metadata,
    )


def test_a_trials_topics_are_its_conditions_their_mesh_terms_and_keywords_each_once() -> None:
    trial = _document(
        {
            "conditions": ["Triple Negative Breast Cancer", "  "],
            "condition_mesh_terms": ["Breast Neoplasms", "triple negative breast cancer"],
            "keywords": ["Immunotherapy"],
            "intervention_mesh_terms": ["Atezolizumab"],  # what it gives, not what it is about
        }
    )
    assert record_topics(trial) == ("Triple Negative Breast Cancer", "Breast Neoplasms", "Immunotherapy")


def test_an_articles_topics_are_its_mesh_headings_and_keywords() -> None:
    article = _document(
        {"mesh_terms": ["Diabetes Mellitus,  Type 2"], "keywords": ["pioglitazone"], "pmid": "1"}
    )
    assert record_topics(article) == ("Diabetes Mellitus, Type 2", "pioglitazone")
    assert record_topics(_document({"conditions": "not a list", "pmid": "1"})) == ()


def _chunk(**changes: object) -> Chunk:
    chunk = Chunk(
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
    return replace(chunk, **changes)  # type: ignore[arg-type]


def test_a_chunk_carries_its_records_topics_and_one_without_keeps_its_document() -> None:
    with_topics = _chunk(topics=("Breast Neoplasms",)).to_dict()
    assert with_topics["topics"] == ["Breast Neoplasms"]
    without = _chunk().to_dict()
    assert "topics" not in without
    assert content_hash(without) != content_hash(with_topics)
