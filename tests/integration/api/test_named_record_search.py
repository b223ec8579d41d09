"""A question that names a record (issue 48 item 2), on both paths a client has — /v1/search and the
clinical pipelines — over tenant A's ClinicalTrials.gov + PMC chunks: the record named by its registry
id comes first with its asked section, and an id that no record carries lifts nothing in its name and
says so."""

from __future__ import annotations

from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch

from control_plane.clinical.pipeline import route_note
from control_plane.query.components import VECTOR_FIELDS

pytestmark = pytest.mark.integration
PIPELINES = {"weighted": "clinical-minmax", "rrf": "clinical-rrf"}
ABSENT = "NCT03548935"  # well formed, in no record of the demo corpus


def _api(stack: ApiStack, text: str, fusion: str) -> dict[str, Any]:
    body = {"query": text, "size": 5, "boosts": True, "fusion_method": fusion}
    answer = stack.client().post("/v1/search", json=body, headers=headers("a-search"))
    assert answer.status_code == 200, answer.get_json()
    return dict(answer.get_json())


def _pipeline(stack: ApiStack, client: OpenSearch, text: str, fusion: str) -> list[dict[str, Any]]:
    body = {"size": 5, "query": {"match": {"text": text}}, "_source": {"excludes": list(VECTOR_FIELDS)}}
    pipeline = {"search_pipeline": PIPELINES[fusion]}
    answer = client.search(index=f"{stack.prefix}-a", params=pipeline, body=body)
    return [hit["_source"] for hit in answer["hits"]["hits"]]


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
@pytest.mark.parametrize(
    ("question", "record", "hints"),
    [
        ("NCT03133988 inclusion criteria", "NCT03133988", {"eligibility"}),
        ("NCT01642004 adverse events", "NCT01642004", {"ae"}),
        ("nct02679963 dose", "NCT02679963", {"dosage"}),
    ],
)
def test_a_named_record_answers_first_with_its_asked_section_on_both_paths(
    stack: ApiStack, client: OpenSearch, fusion: str, question: str, record: str, hints: set[str]
) -> None:
    api = _api(stack, question, fusion)["results"]
    direct = _pipeline(stack, client, question, fusion)
    for path, hits in (("/v1/search", api), (PIPELINES[fusion], direct)):
        assert hits[0]["doc_id"] == record, (path, [h["doc_id"] for h in hits])
        assert any(h["doc_id"] == record and h["intent_hint"] in hints for h in hits[:3]), (
            path,
            [(h["doc_id"], h["intent_hint"]) for h in hits[:3]],
        )


def test_a_bare_registry_id_ranks_its_record_first(stack: ApiStack, client: OpenSearch) -> None:
    assert _api(stack, "NCT02679963", "weighted")["results"][0]["doc_id"] == "NCT02679963"
    assert _pipeline(stack, client, "NCT02679963", "rrf")[0]["doc_id"] == "NCT02679963"


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
def test_an_absent_id_lifts_no_other_records_section_in_its_name_and_says_so(
    stack: ApiStack, client: OpenSearch, fusion: str
) -> None:
    question = f"{ABSENT} eligibility criteria"
    api = _api(stack, question, fusion)
    assert api["metadata"]["absent_records"] == [ABSENT]
    assert [i["name"] for i in api["metadata"]["intents"]] == ["eligibility"]  # detected, not applied
    scores = [r["score"] for r in api["results"]]
    assert scores == sorted(scores, reverse=True) and max(scores) <= 1.0 + 1e-9  # fused, nothing lifted
    direct = _pipeline(stack, client, question, fusion)
    assert direct and all(str(route_note(h)).endswith(f"no record here carries {ABSENT}") for h in direct)
    present = _api(stack, "NCT03133988 eligibility criteria", fusion)["metadata"]["absent_records"]
    assert present == []
