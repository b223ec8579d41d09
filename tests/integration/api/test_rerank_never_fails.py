"""A slow, failing or absent reranker never fails a search, on both paths (issue 70, item 3), on the real
stack: the -rerank pipelines clients query directly, and /v1/search with rerank true. The cross-encoder is
made slow for real (the stack's service, started with its fault switch on, stalls the model's worker:
faults.py ``delay_ms``), made to fail for real (the switch answers the model's call with a 503 or a 500 as a
failed run would), or is absent for real (a remote model whose connector names a port nothing listens on).
Each answer is a 200 in the fused order, at the budget (long before the stall ends) over the fused search,
after exactly one
rerank call (never a retry), and says why: /v1/search in reranked/reranker_error, the pipelines in the
service's counter (biohybrid_inference_rerank_fallbacks_total). Requests without ext.rerank and with size 0
answer too."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from integration.api.stack import ApiStack, headers
from integration.fault_switch import arm, disarm, requests_reached, rerank_fallbacks, slow_down
from integration.rerank_variants import rerank_variants
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.cli.query import rerank_line
from control_plane.config.settings import Settings, load_settings
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.inference.fallback_counts import counted_since, rerank_fallback_counts
from control_plane.mlcommons.registry import registered_model_ids

pytestmark = pytest.mark.integration

BUDGET_MS = 600
SLACK_S = 1.0
"""An answer at the budget comes within this of it, still far from the stall's end: the test tells "gave up
at the budget" from "waited for the model" on a loaded 2-core CI machine. How close to the budget (the
issue's + 50 ms) is a benchmark's figure (benchmarks/rerank_latency), not a timed test's."""
STALL_MS = 4000  # the model's worker stalls this long: far past the budget
FORMS = ("hybrid-rrf-rerank", "clinical-rrf-rerank")
PLAIN = ("hybrid-rrf", "clinical-rrf")
QUESTION = "serious adverse events of the treatment"
SOURCE = {"excludes": ["embedding", "sparse_terms"]}
TIMEOUT_SERIES = 'biohybrid_api_rerank_fallbacks_total{reason="timeout"}'
UNAVAILABLE_SERIES = 'biohybrid_api_rerank_fallbacks_total{reason="unavailable"}'


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _with(settings: Settings, **search: Any) -> Settings:
    return settings.model_copy(update={"search": settings.search.model_copy(update=search)})


def _models(settings: Settings, **models: Any) -> Settings:
    return settings.model_copy(update={"models": settings.models.model_copy(update=models)})


@pytest.fixture(scope="module")
def budgeted(stack: ApiStack, client: OpenSearch) -> Iterator[dict[tuple[str, str], str]]:
    """The fused and -rerank pipeline forms on three more rerank models of the stack's service: ``tight``
    with a budget of BUDGET_MS (the stack's own is wide, for a loaded CI machine), ``absent`` behind a
    connector to a port nothing listens on, ``zero`` blending with weight 0 (the fused order, no model
    call). ``{(label, form): pipeline name}``; the fused forms of ``tight`` are the ones to compare with
    (the same models, put by this module, so no other module's re-applied pipelines are read)."""
    tight = _with(stack.settings, rerank_timeout_ms=BUDGET_MS)
    variants = {
        "tight": tight,
        "absent": _models(tight, service_url=f"http://127.0.0.1:{_closed_port()}"),
        # the fused order as a -rerank form scores it (blend weight 0: the service calls no model), which
        # the clinical form's routing reads: what its fallback must answer
        "zero": _models(tight, rerank_model_weight=0.0),
        # the default on a node without a GPU (the stack's settings opt in to CPU rerank)
        "gpu": _with(tight, rerank_requires_gpu=True),
    }
    ids = registered_model_ids(client, stack.settings)
    with rerank_variants(client, ids, variants, (*FORMS, *PLAIN), stack.prefix) as names:
        yield names


@pytest.fixture
def service(stack: ApiStack) -> Iterator[str]:
    """The stack's service (fault switch on), disarmed after each test and waited for until its model
    answers again (a stall outlives the test that armed it)."""
    url = stack.settings.models.service_url
    yield url
    disarm(url)
    time.sleep(STALL_MS / 1000)


def _search(
    client: OpenSearch, index: str, pipeline: str, body: dict[str, Any]
) -> tuple[list[str], float, dict[str, Any]]:
    started = time.perf_counter()
    answer = client.search(index=index, params={"search_pipeline": pipeline}, body=body)
    return [hit["_id"] for hit in answer["hits"]["hits"]], time.perf_counter() - started, answer


def _hybrid(size: int, ext: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": size,
        "_source": SOURCE,
        "query": {
            "hybrid": {"queries": [{"match": {"text": QUESTION}}, {"match_phrase": {"text": "adverse"}}]}
        },
    }
    if ext:
        body["ext"] = {"rerank": {"query_context": {"query_text": QUESTION}}}
    return body


def _clinical(size: int) -> dict[str, Any]:
    return {"size": size, "_source": SOURCE, "query": {"match": {"text": QUESTION}}}


def _rerank_calls(url: str, model: str) -> int:
    return sum(requests_reached(url, "rerank", model).values())


def test_a_pipeline_whose_reranker_is_too_slow_answers_the_fused_order_within_the_budget(
    stack: ApiStack, client: OpenSearch, budgeted: dict[tuple[str, str], str], service: str
) -> None:
    index, model = f"{stack.prefix}-a", stack.settings.models.rerank
    for form, plain, body in (
        ("hybrid-rrf-rerank", budgeted[("tight", "hybrid-rrf")], _hybrid(10)),
        # the clinical form routes the window by the scores the rerank step leaves: its fused order is
        # the weight-0 blend's, routed
        ("clinical-rrf-rerank", budgeted[("zero", "clinical-rrf-rerank")], _clinical(5)),
    ):
        fused, _, _ = _search(client, index, plain, body)
        fused_s = min(_search(client, index, plain, body)[1] for _ in range(2))
        _search(client, index, budgeted[("tight", form)], body)  # warm (the model may answer or not)
        calls, fallbacks = _rerank_calls(service, model), rerank_fallbacks(service, model)
        slow_down(service, calls=1, delay_ms=STALL_MS)
        ids, took_s, _ = _search(client, index, budgeted[("tight", form)], body)
        assert ids == fused, form
        assert took_s < fused_s + BUDGET_MS / 1000 + SLACK_S, (form, took_s, fused_s)
        assert _rerank_calls(service, model) == calls + 1  # one call: ml-commons did not retry it
        assert rerank_fallbacks(service, model)["timeout"] == fallbacks["timeout"] + 1
        disarm(service)
        time.sleep(STALL_MS / 1000)  # the stalled worker is free again before the next form


def test_a_pipeline_whose_reranker_fails_answers_the_fused_order(
    stack: ApiStack, client: OpenSearch, budgeted: dict[tuple[str, str], str], service: str
) -> None:
    """The model's run fails (the service answers 503 or 500, as for CUDA out of memory or a broken
    model): the rerank step's failure is ignored and the hits keep their fused order, once (no retry)."""
    index, model = f"{stack.prefix}-a", stack.settings.models.rerank
    fused, _, _ = _search(client, index, budgeted[("tight", "hybrid-rrf")], _hybrid(10))
    routed, _, _ = _search(client, index, budgeted[("tight", "clinical-rrf")], _clinical(5))
    for status, form, body, expected in (
        (503, "hybrid-rrf-rerank", _hybrid(10), fused),
        (500, "clinical-rrf-rerank", _clinical(5), routed),  # the hits keep their fused scores: routed
    ):
        before = requests_reached(service, "rerank", model)
        arm(service, 1, status=status, message="CUDA out of memory", endpoints=["rerank"])
        ids, _, _ = _search(client, index, budgeted[("tight", form)], body)
        assert ids == expected, form
        after = requests_reached(service, "rerank", model)
        assert after.get(str(status), 0) == before.get(str(status), 0) + 1, form
        assert sum(after.values()) == sum(before.values()) + 1, form  # one call: no retry


def test_a_pipeline_whose_reranker_is_absent_answers_the_fused_order(
    stack: ApiStack, client: OpenSearch, budgeted: dict[tuple[str, str], str]
) -> None:
    index = f"{stack.prefix}-a"
    fused, _, _ = _search(client, index, budgeted[("tight", "hybrid-rrf")], _hybrid(10))
    assert _search(client, index, budgeted[("absent", "hybrid-rrf-rerank")], _hybrid(10))[0] == fused
    # the step fails, so the hits keep their fused scores, which routing reads: clinical-rrf's answer
    routed, _, _ = _search(client, index, budgeted[("tight", "clinical-rrf")], _clinical(5))
    assert _search(client, index, budgeted[("absent", "clinical-rrf-rerank")], _clinical(5))[0] == routed


def test_by_default_a_pipeline_on_a_service_without_a_gpu_answers_the_fused_order_at_once(
    stack: ApiStack, client: OpenSearch, budgeted: dict[tuple[str, str], str], service: str
) -> None:
    """search.rerank_requires_gpu is true by default (the design): on this CPU-only service the -rerank
    forms answer the fused order with no model call, the fallback counted as gpu_unavailable, which is
    what `biohybrid query` reads and prints for a -rerank pipeline."""
    index, model = f"{stack.prefix}-a", stack.settings.models.rerank
    assert load_settings(environ={}).rerank_requires_gpu  # the default the "gpu" variant renders
    fused, _, _ = _search(client, index, budgeted[("tight", "hybrid-rrf")], _hybrid(10))
    routed, _, _ = _search(client, index, budgeted[("zero", "clinical-rrf-rerank")], _clinical(5))
    for form, body, expected in (
        ("hybrid-rrf-rerank", _hybrid(10), fused),
        ("clinical-rrf-rerank", _clinical(5), routed),
    ):
        scored = requests_reached(service, "rerank", model).get("200", 0)
        before = rerank_fallback_counts(service, model)
        ids, _, _ = _search(client, index, budgeted[("gpu", form)], body)
        after = rerank_fallback_counts(service, model)
        assert ids == expected, form
        assert counted_since(before, after) == {"gpu_unavailable": 1}, form
        assert requests_reached(service, "rerank", model).get("200", 0) == scored + 1  # answered, fused
        assert "the fused order (gpu_unavailable" in rerank_line(before, after)


def test_a_pipeline_search_without_ext_rerank_or_with_size_0_is_answered(
    stack: ApiStack, client: OpenSearch, budgeted: dict[tuple[str, str], str], service: str
) -> None:
    """Without ext.rerank the rerank processor throws a NullPointerException (a 500 without
    ignore_failure, docs/api/resilience.md): now the fused order, with no model call. Size 0 on the hybrid
    form reaches no model (ml-commons refuses an empty rerank, a 400 without ignore_failure); on the
    clinical form, which widens every request to its routing window, the window is reranked and cut to no
    hits."""
    index, model = f"{stack.prefix}-a", stack.settings.models.rerank
    plain, reranked = budgeted[("tight", "hybrid-rrf")], budgeted[("tight", "hybrid-rrf-rerank")]
    fused, _, _ = _search(client, index, plain, _hybrid(10, ext=False))
    calls = _rerank_calls(service, model)
    assert _search(client, index, reranked, _hybrid(10, ext=False))[0] == fused
    ids, _, answer = _search(client, index, reranked, _hybrid(0))
    assert ids == [] and answer["hits"]["total"]["value"] > 0
    assert _rerank_calls(service, model) == calls
    ids, _, answer = _search(client, index, budgeted[("tight", "clinical-rrf-rerank")], _clinical(0))
    assert ids == [] and answer["hits"]["total"]["value"] > 0


def test_v1_search_with_a_reranker_too_slow_or_failing_answers_the_fused_order(
    stack: ApiStack, client: OpenSearch, service: str
) -> None:
    settings = _with(stack.settings, rerank_timeout_ms=BUDGET_MS)
    api = create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()
    model = settings.models.rerank

    def search(query: str, rerank: bool, app: Any = api) -> tuple[dict[str, Any], float]:
        body = {"query": query, "size": 10, "rerank": rerank, "boosts": False, "granularity": "chunk"}
        started = time.perf_counter()
        response = app.post("/v1/search", json=body, headers=headers("a-search"))
        took_s = time.perf_counter() - started
        assert response.status_code == 200, response.get_json()
        return response.get_json(), took_s

    # the model reranks when it is not slowed (the stack's wide budget: a loaded 2-core machine)
    warm, _ = search("adverse events in the trial arms", rerank=True, app=stack.client())
    assert warm["metadata"]["reranked"] is True and warm["metadata"]["reranker_error"] is None
    query = "nausea and vomiting reported as adverse events"
    fused, _ = search(query, rerank=False)
    fused_s = min(search(f"{query} {i}", rerank=False)[1] for i in range(2))
    calls, fallbacks = _rerank_calls(service, model), rerank_fallbacks(service, model)
    slow_down(service, calls=1, delay_ms=STALL_MS)
    answer, took_s = search(query, rerank=True)
    meta = answer["metadata"]
    assert meta["reranked"] is False and meta["reranker_error"] == "timeout"
    assert [r["chunk_id"] for r in answer["results"]] == [r["chunk_id"] for r in fused["results"]]
    assert took_s < fused_s + BUDGET_MS / 1000 + SLACK_S, (took_s, fused_s)
    assert _rerank_calls(service, model) == calls + 1  # one rerank call, no second search, no retry
    assert rerank_fallbacks(service, model)["timeout"] == fallbacks["timeout"] + 1
    disarm(service)
    time.sleep(STALL_MS / 1000)  # the stalled worker is free again
    # the model's run fails: the service answers 500, the search its fused order
    calls = _rerank_calls(service, model)
    arm(service, 1, status=500, message="model run failed", endpoints=["rerank"])
    answer, _ = search(query, rerank=True)
    meta = answer["metadata"]
    assert meta["reranked"] is False and meta["reranker_error"] == "unavailable"
    assert [r["chunk_id"] for r in answer["results"]] == [r["chunk_id"] for r in fused["results"]]
    assert _rerank_calls(service, model) == calls + 1
    metrics = api.get("/metrics").get_data(as_text=True)
    for series in (TIMEOUT_SERIES, UNAVAILABLE_SERIES):
        [counted] = [line for line in metrics.splitlines() if line.startswith(series)]
        assert float(counted.split()[-1]) >= 1, series
