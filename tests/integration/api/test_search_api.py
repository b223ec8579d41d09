"""/v1/search, /retrieve and /v1/rewrite against the real stack: fusion maths as OpenSearch reports
it, component selection, boosts, filters, pagination, highlights, document granularity, metrics."""

from __future__ import annotations

import math
from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from integration.int8_kernels import avx2_only_u8s8
from opensearchpy import OpenSearch

pytestmark = pytest.mark.integration

A = headers("a-search")
TNBC_TRIAL = "NCT03424005"  # Morpheus-TNBC, the demo corpus's triple-negative breast cancer trial
# The demo corpus's trials with breast cancer in their title or conditions.
BREAST_CANCER_TRIALS = {"NCT02465060", "NCT03133988", TNBC_TRIAL}


def search(stack: ApiStack, body: dict[str, Any], key: str = "a-search", status: int = 200) -> dict[str, Any]:
    response = stack.client().post("/v1/search", json=body, headers=headers(key))
    assert response.status_code == status, response.get_data(as_text=True)
    answer: dict[str, Any] = response.get_json()
    return answer


def test_rrf_scores_are_sums_of_reciprocal_ranks(stack: ApiStack) -> None:
    # Boosts off: routing would re-score the eligibility chunks this query names (tested below).
    answer = search(stack, {"query": "inclusion criteria age", "size": 10, "explain": True, "boosts": False})
    assert answer["metadata"]["fusion"] == {"method": "rrf", "weights": None, "rank_constant": 60}
    for result in answer["results"]:
        # A component may score a hit that is outside its own candidate list: it contributes 0.
        parts = {k: v for k, v in result["normalized_scores"].items() if v}
        assert parts, result["chunk_id"]
        for value in parts.values():
            rank = 1 / value - 60
            assert rank >= 1 and abs(rank - round(rank)) < 1e-3, (result["chunk_id"], value)
        assert math.isclose(result["score"], sum(parts.values()), rel_tol=1e-5)


def test_weighted_rrf_scores_are_weighted_sums_of_reciprocal_ranks(stack: ApiStack) -> None:
    weights = {"bm25": 0.6, "splade": 0.1, "dense": 0.3}
    body = {"query": "inclusion criteria age", "weights": weights, "explain": True, "boosts": False}
    answer = search(stack, body)
    assert answer["metadata"]["fusion"] == {"method": "rrf", "weights": weights, "rank_constant": 60}
    for result in answer["results"]:
        parts = {k: v for k, v in result["normalized_scores"].items() if v}
        assert parts, result["chunk_id"]
        for value in parts.values():  # each component's own reciprocal rank, before its weight
            rank = 1 / value - 60
            assert rank >= 1 and abs(rank - round(rank)) < 1e-3, (result["chunk_id"], value)
        expected = sum(weights[c] * value for c, value in parts.items())
        assert math.isclose(result["score"], expected, rel_tol=1e-5), (result["chunk_id"], parts)


def test_weighted_scores_are_weighted_means_of_min_max_scores(stack: ApiStack) -> None:
    weights = {"bm25": 0.5, "splade": 0.2, "dense": 0.3}
    body = {
        "query": "inclusion criteria age",
        "fusion_method": "weighted",
        "weights": weights,
        "explain": True,
        "boosts": False,
    }
    answer = search(stack, body)
    assert answer["metadata"]["fusion"]["weights"] == weights
    for result in answer["results"]:
        parts = result["normalized_scores"]
        assert all(parts[c] is None or 0 <= parts[c] <= 1 for c in weights)
        expected = sum(weights[c] * (parts[c] or 0.0) for c in weights)
        assert abs(result["score"] - expected) < 0.002, (result["chunk_id"], result["score"], expected)


def test_component_selection_uses_only_the_chosen_components(stack: ApiStack) -> None:
    # Boosts off: routing may add sections the component did not score (their scores are null).
    answer = search(stack, {"query": "serious adverse events", "components": ["bm25"], "boosts": False})
    assert answer["metadata"]["components_used"] == ["bm25"]
    for result in answer["results"]:
        scores = result["component_scores"]
        assert scores["bm25"] is not None and scores["splade"] is None and scores["dense"] is None
    dense_only = search(stack, {"query": "serious adverse events", "components": ["dense"], "boosts": False})
    assert all(r["component_scores"]["dense"] is not None for r in dense_only["results"])
    assert all(r["component_scores"]["bm25"] is None for r in dense_only["results"])


def test_eligibility_boost_moves_eligibility_sections_into_the_top_3(stack: ApiStack) -> None:
    query = "eligibility for breast cancer trials"
    plain = search(stack, {"query": query, "size": 3, "boosts": False})
    boosted = search(stack, {"query": query, "size": 3})
    intents = {i["name"]: i["confidence"] for i in boosted["metadata"]["intents"]}
    assert "eligibility" in intents
    assert [b["values"] for b in boosted["metadata"]["boosts"] if b["intent"] == "eligibility"]
    assert [r["intent_hint"] for r in boosted["results"]] == ["eligibility"] * 3
    assert [r["intent_hint"] for r in plain["results"]] != [
        "eligibility"
    ] * 3  # the boost made the difference


# On the saturating int8 kernels of the AVX2-only EPYC (tests/integration/int8_kernels.py), bge-small-bio's
# vectors drift (test_bge_small_bio.py), and under weighted fusion the diabetes cohort counting breast
# cancers outscores the margetuximab trial's routed criteria by 3.2122 to 3.2 (2026-12-02): the declared
# records do not always come first (issue 71, questions about a topic several records share). Strict: the
# mark must go when routing keeps its promise on every CPU.
@pytest.mark.parametrize(
    "fusion",
    [
        pytest.param(
            "weighted",
            marks=pytest.mark.xfail(
                avx2_only_u8s8(), reason="a near tie that int8 drift flips: issue 71", strict=True
            ),
        ),
        "rrf",
    ],
)
def test_a_question_about_many_trials_answers_each_trial_on_its_topic_first(
    stack: ApiStack, fusion: str
) -> None:
    # The demo's own case, make run's showcase: an HIV trial's criteria once reached rank 4 for a breast
    # cancer question, then a solid-tumour screening trial's criteria filled the top, then a diabetes
    # cohort counting breast cancers came before the trials about them. The trials whose title and
    # conditions name breast cancer are the records the question asks about: their criteria lead.
    query = "eligibility for breast cancer trials"
    boosted = search(stack, {"query": query, "size": 10, "highlight": False, "fusion_method": fusion})
    top = boosted["results"][:5]
    assert top[0]["doc_id"] == TNBC_TRIAL and top[0]["intent_hint"] == "eligibility", fusion
    assert not any(r["near_empty"] for r in top), fusion
    records = search(stack, {"query": query, "size": 3, "fusion_method": fusion, "granularity": "document"})
    assert {r["doc_id"] for r in records["results"]} == BREAST_CANCER_TRIALS, fusion


def test_routing_puts_the_asked_about_trials_eligibility_first(stack: ApiStack) -> None:
    query = "who can join the radiation therapy with paclitaxel and carboplatin trial in lung cancer"
    plain = search(stack, {"query": query, "size": 10, "boosts": False, "highlight": False})
    boosted = search(stack, {"query": query, "size": 10, "highlight": False})
    assert plain["results"][0]["doc_id"] == "NCT00023673"
    first = boosted["results"][0]
    assert (first["doc_id"], first["intent_hint"]) == ("NCT00023673", "eligibility")
    assert [b["intent"] for b in boosted["metadata"]["boosts"]] == ["eligibility"]


def test_adverse_event_query_routes_the_trials_ae_tables_into_the_top_3(stack: ApiStack) -> None:
    query = "side effects of paclitaxel and carboplatin with radiation in lung cancer"
    plain = search(stack, {"query": query, "size": 5, "boosts": False})
    boosted = search(stack, {"query": query, "size": 5})

    def ae_tables(answer: dict[str, Any]) -> int:
        return sum(r["is_table"] and r["intent_hint"] == "ae" for r in answer["results"][:3])

    assert plain["results"][0]["doc_id"] == "NCT00023673"
    assert all(r["doc_id"] == "NCT00023673" for r in boosted["results"][:3])
    assert boosted["results"][0]["is_table"] and boosted["results"][0]["intent_hint"] == "ae"
    assert ae_tables(boosted) >= 2 and ae_tables(boosted) > ae_tables(plain)


def test_make_runs_side_effects_question_answers_adverse_events_first(stack: ApiStack) -> None:
    # make run's showcase on the demo index alone (its own index here): the adverse-event sections of the
    # most topical trial lead under both fusions.
    for fusion in ("rrf", "weighted"):
        answer = search(stack, {"query": "side effects of the treatment", "size": 5, "fusion_method": fusion})
        assert answer["results"][0]["intent_hint"] == "ae", fusion
        assert sum(r["intent_hint"] == "ae" for r in answer["results"][:3]) >= 2, fusion


def test_a_generic_question_lifts_no_section_of_an_off_topic_record(stack: ApiStack) -> None:
    query = "side effects of the treatment"
    plain = search(stack, {"query": query, "size": 50, "boosts": False, "highlight": False})
    boosted = search(stack, {"query": query, "size": 10, "highlight": False})
    best = plain["results"][0]["score"]
    topical = {r["doc_id"] for r in plain["results"] if r["score"] >= 0.8 * best}
    plain_rank = {r["chunk_id"]: rank for rank, r in enumerate(plain["results"])}
    for rank, result in enumerate(boosted["results"]):
        if result["doc_id"] not in topical:  # only a topical record's sections may move up
            assert result["chunk_id"] in plain_rank, result["chunk_id"]  # nothing fetched from elsewhere
            assert rank >= plain_rank[result["chunk_id"]], result["chunk_id"]


def test_a_query_without_intent_gets_no_boost(stack: ApiStack) -> None:
    answer = search(stack, {"query": "bacterial genome sequencing"})
    assert answer["metadata"]["intents"] == [] and answer["metadata"]["boosts"] == []


def test_filters_restrict_every_result(stack: ApiStack) -> None:
    pmc = search(stack, {"query": "adverse events", "filters": {"source": ["pmc"]}, "size": 20})
    assert pmc["results"] and {r["source"] for r in pmc["results"]} == {"pmc"}
    ae = search(stack, {"query": "patients", "filters": {"intent": ["ae"]}, "size": 20})
    assert ae["results"] and {r["intent_hint"] for r in ae["results"]} == {"ae"}
    dated = search(
        stack,
        {"query": "patients", "filters": {"publication_date": {"gte": "2015-01-01"}}, "size": 20},
    )
    assert all(r["publication_date"] is None or r["publication_date"] >= "2015" for r in dated["results"])
    assert all(r["publication_date"] is not None for r in dated["results"])


def test_pages_concatenate_to_the_unpaginated_list(stack: ApiStack) -> None:
    body = {"query": "randomized trial of insulin", "fusion_method": "rrf"}
    whole = [r["chunk_id"] for r in search(stack, {**body, "size": 15})["results"]]
    pages = [search(stack, {**body, "from": start, "size": 5})["results"] for start in (0, 5, 10)]
    paged = [r["chunk_id"] for page in pages for r in page]
    assert paged == whole and len(set(paged)) == 15


def test_highlights_point_at_the_query_words(stack: ApiStack) -> None:
    answer = search(stack, {"query": "serious adverse events", "size": 10})
    spans = 0
    for result in answer["results"]:
        for span in result["highlights"]:
            assert result["text"][span["start"] : span["end"]] == span["text"]
            assert any(word in span["text"].lower() for word in ("serious", "advers", "event"))
            spans += 1
    assert spans >= 10


def test_document_granularity_gives_each_document_once_with_its_best_chunks(stack: ApiStack) -> None:
    answer = search(
        stack, {"query": "adverse events of the study drug", "granularity": "document", "size": 8}
    )
    docs = [d["doc_id"] for d in answer["results"]]
    assert len(docs) == len(set(docs)) == 8
    for document in answer["results"]:
        chunk_scores = [c["score"] for c in document["chunks"]]
        assert chunk_scores == sorted(chunk_scores, reverse=True)
        assert document["score"] == pytest.approx(chunk_scores[0])
        assert {c["doc_id"] for c in document["chunks"]} == {document["doc_id"]}


def test_get_and_retrieve_forms_answer_like_post(stack: ApiStack) -> None:
    posted = search(stack, {"query": "insulin dose", "size": 5})
    got = stack.client().get("/v1/search?q=insulin+dose&k=5", headers=A).get_json()
    retrieved = (
        stack.client().post("/retrieve", json={"query": "insulin dose", "topK": 5}, headers=A).get_json()
    )
    ids = [r["chunk_id"] for r in posted["results"]]
    assert [r["chunk_id"] for r in got["results"]] == ids
    assert [r["chunk_id"] for r in retrieved["results"]] == ids


def test_rewrite_returns_the_request_search_sends(stack: ApiStack, client: OpenSearch) -> None:
    body = {"query": "exclusion criteria pregnancy", "size": 10, "fusion_method": "weighted", "boosts": False}
    rewritten = stack.client().post("/v1/rewrite", json=body, headers=A).get_json()
    assert rewritten["index"] == f"{stack.prefix}-*"
    assert rewritten["body"]["search_pipeline"] == rewritten["pipeline"]
    assert rewritten["section_routing"] is None
    direct = client.search(index=rewritten["index"], body=rewritten["body"], params=rewritten["params"])
    via_api = search(stack, body)
    assert [h["_id"] for h in direct["hits"]["hits"]] == [r["chunk_id"] for r in via_api["results"]]


def test_rewrite_says_when_search_routes_after_the_request(stack: ApiStack) -> None:
    body = {"query": "exclusion criteria pregnancy", "size": 10}
    rewritten = stack.client().post("/v1/rewrite", json=body, headers=A).get_json()
    routing = rewritten["section_routing"]
    assert [b["intent"] for b in routing["boosts"]] == ["eligibility"]
    assert routing["weight"] == stack.settings.search.section_routing.weight
    assert rewritten["body"]["size"] == stack.settings.search.section_routing.depth


def test_rerank_reorders_by_the_rerank_model(stack: ApiStack) -> None:
    body = {
        "query": "serious adverse events",
        "rerank": True,
        "rerank_top_n": 30,
        "size": 10,
        "boosts": False,
    }
    answer = search(stack, body)
    meta = answer["metadata"]
    assert meta["reranked"] is True and meta["reranker_error"] is None
    assert meta["reranker_model"] == stack.settings.models.rerank
    scores = [r["component_scores"]["reranker"] for r in answer["results"]]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)


def test_rerank_keeps_the_hits_below_its_depth_in_fused_order(stack: ApiStack) -> None:
    depth = stack.settings.models.rerank_top_n
    body = {"query": "serious adverse events", "size": depth + 10, "boosts": False}
    fused = search(stack, body)["results"]
    reranked = search(stack, {**body, "rerank": True})
    assert reranked["metadata"]["reranked"] is True
    hits = reranked["results"]
    assert len(hits) == len(fused) == depth + 10  # nothing cut
    assert {r["chunk_id"] for r in hits[:depth]} == {r["chunk_id"] for r in fused[:depth]}
    assert [r["chunk_id"] for r in hits[depth:]] == [r["chunk_id"] for r in fused[depth:]]


def test_bad_requests_name_the_problem(stack: ApiStack) -> None:
    cases = [
        (
            {
                "query": "x",
                "fusion_method": "weighted",
                "weights": {"bm25": 0.9, "splade": 0.3, "dense": 0.3},
            },
            "sum",
        ),
        ({"query": "x", "components": []}, "components"),
        ({"query": "x", "tenant_id": "tenant-b"}, "tenant_id"),
        ({"query": ""}, "query"),
        ({"size": 3}, "query"),
    ]
    for body, word in cases:
        answer = search(stack, body, status=400)
        assert word in answer["error"]["message"], answer
    raw = stack.client().post(
        "/v1/search", data="{not json", headers={**A, "Content-Type": "application/json"}
    )
    assert raw.status_code == 400 and "JSON" in raw.get_json()["error"]["message"]


def test_metrics_count_searches_components_and_intents(stack: ApiStack) -> None:
    search(stack, {"query": "side effects of the treatment"})
    text = stack.client().get("/metrics").get_data(as_text=True)
    assert 'biohybrid_api_request_seconds_count{endpoint="/v1/search",status="200"}' in text
    assert 'biohybrid_api_component_seconds_count{component="dense"}' in text
    assert 'biohybrid_api_intent_detections_total{intent="adverse_events"}' in text
    assert 'biohybrid_api_topk_component_hits_total{component="bm25"}' in text


def test_neighbour_merging_keeps_offsets_consistent(stack: ApiStack) -> None:
    body = {"query": "adverse events serious nausea vomiting", "size": 20, "components": ["bm25"]}
    plain = search(stack, body)
    merged = search(stack, {**body, "merge_neighbours": True})
    plain_ids = [r["chunk_id"] for r in plain["results"]]
    for result in merged["results"]:
        assert result["end"] - result["start"] == len(result["text"])
        members = result["merged_from"] or [result["chunk_id"]]
        assert result["chunk_id"] in members
        assert len({m.split(":chunk:")[0] for m in members}) == 1  # never across documents
    kept = [r["chunk_id"] for r in merged["results"]]
    # Merging only removes or absorbs hits: what is kept keeps its relative order.
    assert [c for c in plain_ids if c in kept] == [c for c in kept if c in plain_ids]


def test_an_adverse_event_question_lifts_adverse_event_tables_not_outcome_tables(stack: ApiStack) -> None:
    # The demo's own case: one adverse-event chunk, then four efficacy outcome tables of the same trial.
    boosted = search(stack, {"query": "side effects of the treatment", "size": 10, "highlight": False})
    assert {b["intent"] for b in boosted["metadata"]["boosts"]} == {"adverse_events"}
    assert all(b["values"] == ["ae"] for b in boosted["metadata"]["boosts"])
    tables = [r for r in boosted["results"][:5] if r["is_table"]]
    assert all(r["intent_hint"] == "ae" for r in tables), [(r["chunk_id"], r["intent_hint"]) for r in tables]
    assert boosted["results"][0]["intent_hint"] == "ae"
