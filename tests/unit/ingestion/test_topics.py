"""A record's declared topics, hand-made: what each source's metadata names, in order, each once, on every
chunk; a source without any keeps the chunk documents (and content hashes) it had."""

from __future__ import annotations

from chunk_samples import sample_chunk

from control_plane.ingestion.chunking import content_hash
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


def test_a_chunk_carries_its_records_topics_and_one_without_keeps_its_document() -> None:
    with_topics = sample_chunk(topics=("Breast Neoplasms",)).to_dict()
    assert with_topics["topics"] == ["Breast Neoplasms"]
    without = sample_chunk().to_dict()
    assert "topics" not in without
    assert content_hash(without) != content_hash(with_topics)
