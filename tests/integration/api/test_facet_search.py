"""Facet granularity and the facet_json intent boost against the real stack (tenant A: the
ClinicalTrials.gov and PMC records). Expected adverse-event counts are read from the registry files
themselves (legacy XML, with ElementTree), not from the ingest path under test."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch

from control_plane.datasets.locate import dataset_folder
from control_plane.search.service import SearchService
from control_plane.search.spec import SearchSpec

pytestmark = pytest.mark.integration

A = headers("a-search")


def _post(stack: ApiStack, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = stack.client().post(path, json=body, headers=A)
    assert response.status_code == 200, response.get_data(as_text=True)
    answer: dict[str, Any] = response.get_json()
    return answer


def _registry_file(doc_id: str) -> Path | None:
    """The record's legacy XML file when it is the only file of that trial (a trial present in two
    formats is indexed from whichever was read last)."""
    root = dataset_folder("clinicaltrials")
    files = list(root.glob(f"*/{doc_id}.*"))
    return files[0] if len(files) == 1 and files[0].suffix == ".xml" else None


def _count(value: str | None) -> int | None:
    return int(value) if value else None


def _serious_events(path: Path) -> list[tuple[str, str, dict[str, tuple[int | None, int | None]]]]:
    """(organ system, term, {group: (affected, at risk)}) of every serious event the record reports."""
    study = ET.parse(path).getroot()
    events = []
    for category in study.findall("clinical_results/reported_events/serious_events/category_list/category"):
        organ = (category.findtext("title") or "").strip()
        for event in category.findall("event_list/event"):
            counts = {
                c.get("group_id", ""): (_count(c.get("subjects_affected")), _count(c.get("subjects_at_risk")))
                for c in event.findall("counts")
            }
            events.append((organ, (event.findtext("sub_title") or "").strip(), counts))
    return events


def _stored_facts(client: OpenSearch, index: str, chunk_ids: list[str]) -> list[bool]:
    """Whether each chunk has facet_json in the index."""
    docs = client.mget(index=index, body={"ids": chunk_ids}, params={"_source_includes": "facet_json"})[
        "docs"
    ]
    return [bool((doc.get("_source") or {}).get("facet_json")) for doc in docs]


def test_facet_search_returns_only_chunks_with_facts(stack: ApiStack, client: OpenSearch) -> None:
    index = f"{stack.prefix}-a"
    body = {"query": "eligibility for breast cancer trials", "size": 20, "highlight": False}
    chunked = _post(stack, "/v1/search", {**body, "boosts": False})["results"]
    # At chunk granularity the query also finds chunks without facts: the filter has work to do.
    assert not all(_stored_facts(client, index, [r["chunk_id"] for r in chunked]))
    for boosts in (False, True):  # with boosts, the sections routing fetches are filtered too
        answer = _post(stack, "/v1/search", {**body, "granularity": "facet", "boosts": boosts})
        results = answer["results"]
        assert answer["metadata"]["granularity"] == "facet" and len(results) == 20
        assert all(r["facets"] is not None and r["facet_error"] is None for r in results)
        assert all(_stored_facts(client, index, [r["chunk_id"] for r in results]))
        assert {r["facets"]["kind"] for r in results} >= {"eligibility"}


def test_adverse_event_counts_match_the_registry_record(stack: ApiStack) -> None:
    body = {"query": "serious adverse events", "granularity": "facet", "size": 10, "highlight": False}
    results = _post(stack, "/v1/search", body)["results"]
    serious = [
        r
        for r in results
        if r["facets"]["kind"] == "adverse_events" and r["facets"]["seriousness"] == "serious"
    ]
    checked = 0
    for result in serious:
        path = _registry_file(result["doc_id"])
        if path is None:
            continue
        got = [
            (
                e["organ_system"],
                e["term"],
                {g: (c["affected"], c["at_risk"]) for g, c in e["counts"].items()},
            )
            for e in result["facets"]["events"]
        ]
        assert got == _serious_events(path), result["doc_id"]
        checked += 1
    assert checked >= 1, [r["doc_id"] for r in serious]


def _ranking(client: OpenSearch, rewritten: dict[str, Any]) -> dict[str, tuple[int, float, bool]]:
    """Chunk id -> (rank, BM25 score, has facts) for the request /v1/rewrite returns (sent as is, so
    without the routing step /v1/search adds after it)."""
    answer = client.search(index=rewritten["index"], body=rewritten["body"], params=rewritten["params"])
    return {
        hit["_id"]: (rank, float(hit["matched_queries"]["bm25"]), bool(hit["_source"].get("facet_json")))
        for rank, hit in enumerate(answer["hits"]["hits"])
    }


def _kept_below(
    before: dict[str, tuple[int, float, bool]], after: dict[str, tuple[int, float, bool]], a: str
) -> bool:
    """Every chunk ``a`` outranked before (and still ranked after) is still below it."""
    return all(after[a][0] < after[b][0] for b in before.keys() & after.keys() if before[a][0] < before[b][0])


def _overtakes(
    before: dict[str, tuple[int, float, bool]], after: dict[str, tuple[int, float, bool]], a: str
) -> int:
    return sum(
        1 for b in before.keys() & after.keys() if before[b][0] < before[a][0] and after[a][0] < after[b][0]
    )


def test_a_clinical_intent_lifts_the_chunks_whose_facts_match(stack: ApiStack, client: OpenSearch) -> None:
    # BM25 alone (best_fields: a chunk scores its best weighted field), facet granularity, boosts on and
    # off. A chunk whose best field is facet_json scores exactly factor x as much with the boost
    # ("fact-led"); any other chunk less than that. So a fact-led chunk keeps below it every chunk it
    # outranked, and may overtake others.
    body = {"query": "serious adverse events", "components": ["bm25"], "granularity": "facet", "size": 50}
    factor = stack.settings.search.facets.intent_boost
    assert factor > 1
    assert _post(stack, "/v1/search", {**body, "highlight": False})["metadata"]["facet_boost"] == factor
    assert _post(stack, "/v1/search", {**body, "boosts": False})["metadata"]["facet_boost"] is None
    assert _post(stack, "/v1/search", {**body, "granularity": "chunk"})["metadata"]["facet_boost"] is None
    after = _ranking(client, _post(stack, "/v1/rewrite", body))
    before = _ranking(client, _post(stack, "/v1/rewrite", {**body, "boosts": False}))
    common = before.keys() & after.keys()
    for chunk in common:
        assert before[chunk][1] - 1e-6 <= after[chunk][1] <= factor * before[chunk][1] + 1e-6, chunk
    led = [c for c in common if after[c][1] == pytest.approx(factor * before[c][1], rel=1e-5)]
    assert led and all(_kept_below(before, after, chunk) for chunk in led)
    assert sum(_overtakes(before, after, chunk) for chunk in led) >= 1  # the boost changed the order


def test_chunks_with_facts_rise_at_chunk_granularity_when_configured(
    stack: ApiStack, client: OpenSearch
) -> None:
    """Off by default at chunk granularity (defaults.yaml says why); the service honours the setting:
    a chunk with facts never falls below a chunk without facts that it outranked."""
    facets = stack.settings.search.facets.model_copy(update={"boost_granularities": ("chunk", "facet")})
    search = stack.settings.search.model_copy(update={"facets": facets})
    service = SearchService(client, stack.settings.model_copy(update={"search": search}))
    spec = {"query": "exclusion criteria pregnancy", "components": ["bm25"], "size": 50}

    def ranking(boosts: bool) -> dict[str, tuple[int, float, bool]]:
        plan = service.plan(SearchSpec.model_validate({**spec, "boosts": boosts}), "tenant-a")
        return _ranking(client, plan.request.to_dict())

    after, before = ranking(True), ranking(False)
    common = before.keys() & after.keys()
    for chunk in common:
        if not before[chunk][2]:  # no facts: the same score
            assert after[chunk][1] == pytest.approx(before[chunk][1]), chunk
    facts = [c for c in common if before[c][2]]
    without = {c for c in common if not before[c][2]}
    for chunk in facts:
        assert all(after[chunk][0] < after[b][0] for b in without if before[chunk][0] < before[b][0])
    overtaken = sum(
        1 for f in facts for b in without if before[b][0] < before[f][0] and after[f][0] < after[b][0]
    )
    assert overtaken >= 1
