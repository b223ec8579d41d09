"""A study named in a question by the acronym its article's title gives (issue 48 item 2), on both paths
— /v1/search's service and the clinical pipelines — over MEDLINE citations the project's ingest indexed:
the name is one of the record's identifiers, so the named-record clause finds that record alone, the
record comes first, and a terse question's one section word lifts its section."""

from __future__ import annotations

import gzip
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from integration.api.stack import ApiStack, ingest_for_tenant
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.clinical.pipeline import route_note
from control_plane.query.components import VECTOR_FIELDS
from control_plane.query.named_records import identifier_phrases, named_record_clause
from control_plane.search.results import ChunkResult
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec

pytestmark = pytest.mark.integration
SUBSET = Path(__file__).parents[3] / "testsets" / "clinical" / "medline-subset.xml.gz"
NAMED = {"32687801": "IN-REC-SUR-E", "32043980": "GRECCAR 2"}  # named only in their titles
DISTRACTORS = 12
PIPELINES = {"weighted": "clinical-minmax", "rrf": "clinical-rrf"}
QUESTIONS = [
    ("IN-REC-SUR-E trial methods", "32687801", "methods"),
    ("GRECCAR 2 trial results", "32043980", "results"),
]


@pytest.fixture(scope="module")
def citations(stack: ApiStack, client: OpenSearch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The two named citations and the first others of the clinical MEDLINE subset, ingested."""
    with gzip.open(SUBSET) as xml:
        articles = ET.parse(xml).getroot().findall("PubmedArticle")
    kept = [a for a in articles if a.findtext("MedlineCitation/PMID") in NAMED]
    kept += [a for a in articles if a.findtext("MedlineCitation/PMID") not in NAMED][:DISTRACTORS]
    subset = ET.Element("PubmedArticleSet")
    subset.extend(kept)
    path = tmp_path_factory.mktemp("study-names") / "named.xml.gz"
    with gzip.open(path, "wb") as out:
        ET.ElementTree(subset).write(out, encoding="utf-8", xml_declaration=True)
    index = session_index("study-names")
    try:
        docs = ingest_for_tenant(client, stack.settings, [str(path)], index, "default")
        assert set(NAMED) <= docs and len(docs) == len(NAMED) + DISTRACTORS
        yield index
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


def test_the_title_gives_each_study_its_name_among_its_identifiers(
    client: OpenSearch, citations: str
) -> None:
    """The named-record clause a question's name becomes finds that record's chunks and no other's."""
    for question, record, _ in QUESTIONS:
        clause = named_record_clause(identifier_phrases(question))
        body = {"size": 100, "query": clause, "_source": ["doc_id", "identifiers"]}
        hits = client.search(index=citations, body=body)["hits"]["hits"]
        assert hits and {h["_source"]["doc_id"] for h in hits} == {record}
        assert NAMED[record] in hits[0]["_source"]["identifiers"]


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
@pytest.mark.parametrize(("question", "record", "section"), QUESTIONS)
def test_a_study_named_by_its_title_answers_first_with_its_asked_section_on_both_paths(
    stack: ApiStack, client: OpenSearch, citations: str, fusion: str, question: str, record: str, section: str
) -> None:
    spec = SearchSpec.model_validate({"query": question, "size": 5, "boosts": True, "fusion_method": fusion})
    results = [
        r
        for r in SearchService(client, stack.settings).search(spec, "default", citations).results
        if isinstance(r, ChunkResult)
    ]
    assert results[0].doc_id == record, [r.doc_id for r in results]
    assert any(r.doc_id == record and r.section == section for r in results[:3]), [
        (r.doc_id, r.section) for r in results[:3]
    ]
    body: dict[str, Any] = {
        "size": 5,
        "query": {"match": {"text": question}},
        "_source": {"excludes": list(VECTOR_FIELDS)},
    }
    answer = client.search(index=citations, params={"search_pipeline": PIPELINES[fusion]}, body=body)
    hits = [hit["_source"] for hit in answer["hits"]["hits"]]
    assert hits[0]["doc_id"] == record, [h["doc_id"] for h in hits]
    lifted = [h for h in hits[:3] if h["doc_id"] == record and h["section"] == section]
    assert lifted and "; lifted x" in str(route_note(lifted[0])), [
        (h["doc_id"], h["section"], route_note(h)) for h in hits[:3]
    ]
