"""The inference service with the real committed models: Flask's test client for the contract, and the
real threaded server on a free port for batching, overload and metrics."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from flask.testing import FlaskClient
from integration.hang_up import post_and_hang_up

from control_plane.fusion.rerank_blend import blended_scores
from control_plane.inference import BackgroundServer, ServiceConfig, create_app
from control_plane.inference.callers import PROJECT, CallerRate
from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.manifest import DEFAULT_MANIFEST
from control_plane.models.tokenization import cut_to_tokens
from control_plane.serving import caller_token

LONG = (
    "Low-dose aspirin reduces myocardial infarction but raises the risk of gastrointestinal bleeding. " * 12
)


@pytest.fixture(scope="module")
def client() -> Iterator[FlaskClient]:
    app = create_app(ServiceConfig(device="cpu", max_items=4, max_chars=2000))
    yield app.test_client()
    app.extensions["biohybrid.host"].stop()


def _post(url: str, body: Any, timeout: float = 30) -> tuple[int, Any, dict[str, str]]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def test_embeddings_are_a_top_level_list_of_vectors(client: FlaskClient) -> None:
    resp = client.post("/v1/embeddings/minilm", json={"input": ["aspirin bleeding", "statins"]})
    assert resp.status_code == 200
    vectors = resp.get_json()
    assert isinstance(vectors, list) and len(vectors) == 2
    assert all(len(v) == 384 and all(isinstance(x, float) for x in v) for v in vectors)
    np.testing.assert_allclose(np.linalg.norm(np.array(vectors), axis=1), 1.0, atol=1e-5)


def test_sparse_answers_a_response_list_of_token_weight_maps(client: FlaskClient) -> None:
    resp = client.post("/v1/sparse/splade-tiny", json={"input": ["aspirin bleeding", LONG]})
    assert resp.status_code == 200
    body = json.loads(resp.data)  # parsed by hand: key order (heaviest first) is part of the contract
    assert list(body) == ["response"] and len(body["response"]) == 2
    query, document = body["response"]
    assert {"bleeding", "##rin"} <= set(query)
    assert list(query.values()) == sorted(query.values(), reverse=True)
    assert all(isinstance(w, float) and w > 0 for w in document.values())
    assert len(document) <= 256


def test_rerank_answers_index_and_relevance_score_best_first(client: FlaskClient) -> None:
    docs = ["Share prices fell on Monday.", "Aspirin use raises gastrointestinal bleeding risk.", "Statins"]
    resp = client.post("/v1/rerank/minilm", json={"query": "aspirin bleeding", "documents": docs, "top_n": 3})
    assert resp.status_code == 200
    results = resp.get_json()
    assert results[0]["index"] == 1 and sorted(r["index"] for r in results) == [0, 1, 2]
    scores = [r["relevance_score"] for r in results]
    assert scores == sorted(scores, reverse=True) and all(isinstance(s, float) for s in scores)
    top = client.post("/v1/rerank/minilm", json={"query": "aspirin bleeding", "documents": docs, "top_n": 1})
    assert top.get_json() == results[:1]


def test_blended_rerank_scores_the_depth_and_keeps_the_rest_in_first_stage_order(client: FlaskClient) -> None:
    docs = [
        "Share prices fell on Monday.",
        "Aspirin use raises gastrointestinal bleeding risk.",
        "Statins",
        "Rain",
    ]
    query = "aspirin bleeding"
    raw = client.post("/v1/rerank/ce-minilm", json={"query": query, "documents": docs[:2]}).get_json()
    model_scores = [0.0, 0.0]
    for item in raw:
        model_scores[item["index"]] = item["relevance_score"]
    body = {"query": query, "documents": docs, "depth": 2, "model_weight": 1.0}
    results = client.post("/v1/rerank/ce-minilm", json=body).get_json()
    assert [r["index"] for r in results] == [1, 0, 2, 3]  # the model's order of the head, then the tail
    expected = blended_scores(model_scores, 4, 1.0)
    assert [r["relevance_score"] for r in results] == pytest.approx(
        [expected[i] for i in (1, 0, 2, 3)], rel=1e-6
    )
    fused = client.post("/v1/rerank/ce-minilm", json={**body, "model_weight": 0}).get_json()
    assert [r["index"] for r in fused] == [0, 1, 2, 3]  # weight 0: the first-stage order, untouched
    # Only the depth counts against the per-request limit (4 here): the tail is ranked, not scored.
    long = client.post("/v1/rerank/ce-minilm", json={**body, "documents": docs * 5})
    assert long.status_code == 200 and [r["index"] for r in long.get_json()][2:] == list(range(2, 20))
    too_deep = client.post("/v1/rerank/ce-minilm", json={**body, "documents": docs * 5, "depth": 5})
    assert too_deep.status_code == 413 and "'depth' is 5" in too_deep.get_json()["error"]["message"]


@pytest.mark.parametrize(
    ("path", "body", "status", "names"),
    [
        ("/v1/embeddings/minilm", {"input": []}, 400, "'input' is an empty list"),
        ("/v1/embeddings/minilm", {"input": "one text"}, 400, "must be a list of strings"),
        ("/v1/embeddings/minilm", {"input": ["a", None]}, 400, "'input[1]' must be a string"),
        ("/v1/embeddings/minilm", {"input": ["x"] * 5}, 413, "'input' has 5 items; the limit is 4"),
        ("/v1/sparse/splade-tiny", {"input": ["x" * 2001]}, 413, "2001 characters; the limit is 2000"),
        ("/v1/rerank/minilm", {"documents": ["d"]}, 400, "'query' is required"),
        (
            "/v1/rerank/ce-minilm",
            {"query": "q", "documents": ["d"], "depth": 0},
            400,
            "'depth' must be a positive",
        ),
        ("/v1/rerank/ce-minilm", {"query": "q", "documents": ["d"], "model_weight": 2}, 400, "from 0 to 1"),
        ("/v1/embeddings/biobert", {"input": ["x"]}, 404, "no dense model 'biobert'"),
        ("/v1/embeddings/splade-tiny", {"input": ["x"]}, 404, "no dense model 'splade-tiny'"),
    ],
)
def test_bad_requests_get_a_4xx_naming_the_problem(
    client: FlaskClient, path: str, body: Any, status: int, names: str
) -> None:
    resp = client.post(path, json=body)
    assert resp.status_code == status
    assert names in resp.get_json()["error"]["message"]


def test_non_json_bodies_and_wrong_methods_are_refused(client: FlaskClient) -> None:
    assert client.post("/v1/embeddings/minilm", data="text", content_type="text/plain").status_code == 415
    bad = client.post("/v1/embeddings/minilm", data="{oops", content_type="application/json")
    assert bad.status_code == 400 and "not valid JSON" in bad.get_json()["error"]["message"]
    assert client.get("/v1/embeddings/minilm").status_code == 405


@pytest.mark.parametrize(
    ("path", "body", "names"),
    [
        ("/v1/embeddings/minilm", b'{"input": ["a \\ud800"]}', "lone surrogate"),
        (
            "/v1/embeddings/minilm",
            b'{"input": ' + b"[" * 3000 + b"]" * 3000 + b"}",
            "more than 32 deep; at most 32",
        ),
        ("/v1/sparse/splade-tiny", b'{"input": ["caf\xe9"]}', "not valid UTF-8: byte 0xe9"),
        ("/v1/rerank/ce-minilm", b'{"query": "q", "documents": ["d"], "model_weight": NaN}', "holds NaN"),
        (
            "/v1/clinical/route",
            b'{"hits": [{"previous_score": "abc", "doc_id": "d"}], "query": {"match": {"text": "q"}}, '
            b'"weight": 1, "min_topicality": 0.5, "max_documents": 3, "depth": 10}',
            "hit 0: previous_score 'abc' is not a finite number",
        ),
    ],
    ids=["surrogate", "nesting", "utf8", "nan", "score-string"],
)
def test_hostile_bodies_are_a_400_naming_the_problem(
    client: FlaskClient, path: str, body: bytes, names: str
) -> None:
    """Each was a 500 ("model failed: RecursionError", TypeError, ValueError) before issue 50."""
    resp = client.post(path, data=body, content_type="application/json")
    assert (resp.status_code, names in resp.get_json()["error"]["message"]) == (400, True), resp.get_json()


def test_a_long_query_is_encoded_as_its_first_max_query_tokens(client: FlaskClient) -> None:
    """What a query model reads is bounded: a query's vector and terms are those of its first
    max_query_tokens tokens, however long it is (documents are read to the model's max length)."""
    host = client.application.extensions["biohybrid.host"]
    limit = host.config.max_query_tokens
    words = ("statin myopathy risk in elderly patients " * 45).strip()  # 1,889 characters, ~300 tokens
    tokenizer = host._tokenizers["bge-small-bio"]
    head = cut_to_tokens(tokenizer, words, limit)
    assert len(head) < len(words)
    for path, key in (("/v1/embeddings/bge-small-bio", None), ("/v1/sparse/splade-tiny", "response")):
        long, short = (
            client.post(path, json={"input": [text], "input_type": "query"}).get_json()
            for text in (words, head)
        )
        assert (long if key is None else long[key]) == (short if key is None else short[key])
    as_document = client.post("/v1/embeddings/bge-small-bio", json={"input": [words]}).get_json()
    cut_document = client.post("/v1/embeddings/bge-small-bio", json={"input": [head]}).get_json()
    assert as_document != cut_document  # documents are not cut
    metrics = client.get("/metrics").get_data(as_text=True)
    assert 'biohybrid_inference_queries_cut_total{model="bge-small-bio"}' in metrics


def test_health_ready_and_models(client: FlaskClient) -> None:
    assert client.get("/health").get_json() == {"status": "ok"}
    ready = client.get("/ready")
    assert ready.status_code == 200 and ready.get_json()["ready"] is True
    models = {m["name"]: m for m in client.get("/v1/models").get_json()["models"]}
    assert models["minilm"]["dimension"] == 384 and models["splade-tiny"]["role"] == "sparse"


def test_a_model_that_cannot_load_is_reported_not_ready(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_MANIFEST.read_text())
    for model in data["models"]:
        for artifact in model["artifacts"].values():  # the copy lives elsewhere: make paths absolute
            artifact["path"] = str(REPOSITORY_ROOT / artifact["path"])
        if model["name"] == "mpnet":
            model["artifacts"] = {}  # as on a fresh clone: mpnet is never committed
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(yaml.safe_dump(data))
    app = create_app(ServiceConfig(dense_models=("minilm", "mpnet"), sparse_models=(), manifest=manifest))
    try:
        client = app.test_client()
        ready = client.get("/ready")
        models = ready.get_json()["models"]
        assert ready.status_code == 503 and models["minilm"]["status"] == "ready"
        assert models["mpnet"]["status"] == "failed"
        assert "rebuild with `python -m model_artifacts.build --model mpnet`" in models["mpnet"]["error"]
        resp = client.post("/v1/embeddings/mpnet", json={"input": ["x"]})
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "1"
        assert client.post("/v1/embeddings/minilm", json={"input": ["x"]}).status_code == 200
    finally:
        app.extensions["biohybrid.host"].stop()


def test_real_server_merges_concurrent_requests_and_exposes_metrics() -> None:
    config = ServiceConfig(port=0, device="cpu", max_batch=16, max_wait_ms=100, sparse_models=())
    with BackgroundServer(config) as server, ThreadPoolExecutor(8) as pool:
        url = f"{server.url}/v1/embeddings/minilm"
        answers = list(pool.map(lambda i: _post(url, {"input": [f"query number {i}"]}), range(8)))
        assert all(status == 200 and len(body) == 1 and len(body[0]) == 384 for status, body, _ in answers)
        status, metrics = _get(f"{server.url}/metrics")
    assert status == 200
    lines = dict(line.rsplit(" ", 1) for line in metrics.splitlines() if line and not line.startswith("#"))
    assert float(lines['biohybrid_inference_batch_size_count{model="minilm"}']) < 8  # some requests merged
    assert float(lines['biohybrid_inference_batch_size_sum{model="minilm"}']) == 8
    assert (
        float(lines['biohybrid_inference_requests_total{endpoint="embeddings",model="minilm",status="200"}'])
        == 8
    )
    assert 'biohybrid_inference_queue_depth{model="minilm"}' in lines
    assert (
        'biohybrid_inference_request_seconds_bucket{endpoint="embeddings",le="0.5",model="minilm"}' in lines
    )
    assert 'biohybrid_inference_model_ready{model="minilm",provider="CPUExecutionProvider"}' in lines


def _post_as(
    url: str, caller: str, body: Any, *, token: str | None = None
) -> tuple[int, Any, dict[str, str]]:
    """POST naming ``caller``; a project caller proves its name with this checkout's caller token unless
    ``token`` is given (``""``: none sent)."""
    token = caller_token() if token is None and caller in PROJECT else token
    headers = {"Content-Type": "application/json", "X-Biohybrid-Caller": caller}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def test_real_server_keeps_a_caller_within_its_share_of_the_threads_and_serves_the_others() -> None:
    """Two request threads, a caller's share one: while a long request of ``opensearch`` runs, its next
    one is a 429 naming the caller, and ``api`` gets the other thread (for another model: a model's queue
    serves one request at a time, whoever sent it)."""
    config = ServiceConfig(
        port=0,
        device="cpu",
        dense_models=("minilm",),
        max_batch=1,
        max_wait_ms=0,
        http_threads=2,
        caller_share=0.5,
    )
    with BackgroundServer(config) as server, ThreadPoolExecutor(1) as pool:
        url = f"{server.url}/v1/sparse/splade-tiny"
        long_one = pool.submit(_post_as, url, "opensearch", {"input": [LONG] * 40})  # 40 model calls
        deadline = time.monotonic() + 30
        while server.callers.in_progress("opensearch") == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.callers.in_progress("opensearch") == 1 and not long_one.done()
        status, body, headers = _post_as(url, "opensearch", {"input": ["statins"]})
        assert status == 429, body
        message = body["error"]["message"]
        assert "at capacity for caller 'opensearch' (1 of its 2 request threads in progress" in message
        assert message.endswith("retry after 1 s")
        assert headers["Retry-After"] == "1"
        status, other, _ = _post_as(f"{server.url}/v1/embeddings/minilm", "api", {"input": ["aspirin"]})
        assert not long_one.done()  # still running: another caller was served beside it
        assert status == 200 and len(other[0]) == 384
        assert long_one.result()[0] == 200
        status, bad, _ = _post_as(url, "Not A Name", {"input": ["statins"]})
        assert status == 400 and "X-Biohybrid-Caller" in bad["error"]["message"]
        _, metrics = _get(f"{server.url}/metrics")
    assert 'biohybrid_inference_caller_refusals_total{caller="opensearch",limit="threads"} 1.0' in metrics


def test_real_server_holds_a_rated_caller_to_its_rate_and_every_other_name_shares_it() -> None:
    """``other`` at 0.1 requests per second with a burst of 2: two requests pass, the third is a 429
    saying when to ask again; a second invented name shares that allowance (names cost nothing), and
    ``api``, with no rate, is served all the while."""
    config = ServiceConfig(
        port=0,
        device="cpu",
        dense_models=("minilm",),
        sparse_models=(),
        caller_rates={"other": CallerRate(per_s=0.1, burst=2)},
    )
    with BackgroundServer(config) as server:
        url = f"{server.url}/v1/embeddings/minilm"
        statuses = [_post_as(url, "mine", {"input": ["statins"]})[0] for _ in range(2)]
        status, body, headers = _post_as(url, "mine", {"input": ["statins"]})
        assert statuses == [200, 200] and status == 429, body
        assert "caller 'other' sent more than 0.1 requests per second (burst 2" in body["error"]["message"]
        assert headers["Retry-After"] == "10"  # a whole token at 0.1/s (less the moment since), rounded up
        assert _post_as(url, "yours", {"input": ["statins"]})[0] == 429
        assert [_post_as(url, "api", {"input": ["aspirin"]})[0] for _ in range(5)] == [200] * 5
        _, metrics = _get(f"{server.url}/metrics")
    assert 'biohybrid_inference_caller_refusals_total{caller="other",limit="rate"} 2.0' in metrics


def test_real_server_counts_a_project_callers_name_without_the_token_as_other() -> None:
    """A local process that names itself ``opensearch`` (no token, or a wrong one) gains nothing: it is
    held to ``other``'s rate, while the same name with the token has none."""
    config = ServiceConfig(
        port=0,
        device="cpu",
        dense_models=("minilm",),
        sparse_models=(),
        rerank_models=(),
        caller_rates={"other": CallerRate(per_s=0.1, burst=2)},
    )
    with BackgroundServer(config) as server:
        url = f"{server.url}/v1/embeddings/minilm"
        forged = [_post_as(url, "opensearch", {"input": ["statins"]}, token="") for _ in range(2)]
        status, body, _ = _post_as(url, "opensearch", {"input": ["statins"]}, token="not-the-token")
        assert [f[0] for f in forged] == [200, 200] and status == 429, body
        assert "caller 'other' sent more than 0.1 requests per second" in body["error"]["message"]
        assert [_post_as(url, "opensearch", {"input": ["aspirin"]})[0] for _ in range(5)] == [200] * 5
        _, metrics = _get(f"{server.url}/metrics")
    assert 'biohybrid_inference_unverified_callers_total{claimed="opensearch"} 3.0' in metrics
    assert 'biohybrid_inference_caller_requests_total{caller="opensearch"} 5.0' in metrics


def test_real_server_answers_503_fast_under_overload_and_recovers() -> None:
    config = ServiceConfig(
        port=0, device="cpu", dense_models=(), max_batch=1, max_wait_ms=0, queue_size=1, request_timeout_s=20
    )
    with BackgroundServer(config) as server, ThreadPoolExecutor(16) as pool:
        url = f"{server.url}/v1/sparse/splade-tiny"
        body = {"input": [LONG] * 8}  # each request is 8 model calls of a 256-token text
        started = time.monotonic()
        answers = list(pool.map(lambda _: (*_post(url, body), time.monotonic() - started), range(16)))
        refused = [a for a in answers if a[0] == 503]
        served = [a for a in answers if a[0] == 200]
        assert refused and served and len(refused) + len(served) == 16
        assert all("overloaded" in a[1]["error"]["message"] and a[2]["Retry-After"] == "1" for a in refused)
        assert min(a[3] for a in refused) < 1.0  # refused at once, not after queueing
        assert max(a[3] for a in answers) < 20
        status, after, _ = _post(url, {"input": ["aspirin bleeding"]})
        assert status == 200 and "bleeding" in after["response"][0]
        _, metrics = _get(f"{server.url}/metrics")
    assert 'biohybrid_inference_requests_total{endpoint="sparse",model="splade-tiny",status="503"}' in metrics


def test_real_server_sheds_a_rerank_whose_budget_ran_out() -> None:
    """An abandoned rerank must not keep the service busy: past the caller's budget the answer is the
    documents' own order (200, saying it was not reranked), the pairs not yet scored are dropped, and
    the next request is served at once (the abandoned one alone would hold the cores for seconds: 160
    long pairs at ~50 pairs/s)."""
    config = ServiceConfig(port=0, device="cpu", dense_models=(), sparse_models=(), max_items=256)
    with BackgroundServer(config) as server:
        url = f"{server.url}/v1/rerank/ce-minilm"
        documents = [f"{i}: {LONG}" for i in range(160)]
        started = time.monotonic()
        status, body, headers = _post(
            url, {"query": "aspirin bleeding", "documents": documents, "budget_ms": 300}
        )
        assert status == 200 and [row["index"] for row in body] == list(range(160))  # the given order
        assert (headers["X-Biohybrid-Reranked"], headers["X-Biohybrid-Rerank-Fallback"]) == (
            "false",
            "timeout",
        )
        assert time.monotonic() - started < 1.5
        started = time.monotonic()
        status, ranked, _ = _post(url, {"query": "aspirin bleeding", "documents": [LONG, "statins"]})
        assert status == 200 and len(ranked) == 2
        assert time.monotonic() - started < 1.5, "the abandoned pairs were scored first"
        _, metrics = _get(f"{server.url}/metrics")
    lines = dict(line.rsplit(" ", 1) for line in metrics.splitlines() if line and not line.startswith("#"))
    assert float(lines['biohybrid_inference_shed_items_total{model="ce-minilm"}']) >= 100


def test_real_server_sheds_a_rerank_whose_caller_left() -> None:
    """The caller closes its connection 0.3 s into a rerank of 160 long pairs (~3 s of work) that has no
    budget of its own: waitress sees it go, the pairs not yet scored are dropped, and the next request
    is served at once (issue 50: work stops when the caller has gone)."""
    config = ServiceConfig(port=0, device="cpu", dense_models=(), sparse_models=(), max_items=256)
    with BackgroundServer(config) as server:
        documents = [f"{i}: {LONG}" for i in range(160)]
        post_and_hang_up(
            server.url, "/v1/rerank/ce-minilm", {"query": "aspirin", "documents": documents}, after_s=0.3
        )
        started = time.monotonic()
        status, ranked, _ = _post(
            f"{server.url}/v1/rerank/ce-minilm", {"query": "aspirin", "documents": [LONG]}
        )
        assert status == 200 and len(ranked) == 1
        assert time.monotonic() - started < 1.5, "the abandoned pairs were scored first"
        _, metrics = _get(f"{server.url}/metrics")
    lines = dict(line.rsplit(" ", 1) for line in metrics.splitlines() if line and not line.startswith("#"))
    assert float(lines['biohybrid_inference_shed_items_total{model="ce-minilm"}']) >= 100
