"""The query cache on the real stack: the inference service reports the digests it is keyed by, a repeated
query is served from the caches with the identical answer, and a write to the tenant's index (or a change
of the cluster's metadata, as `apply` makes) turns the next identical request into a miss that sees it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from flask.testing import FlaskClient
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch

from control_plane.api.app import create_app
from control_plane.config.search_settings import CacheStoreSettings
from control_plane.evaluation.settings import load_evaluation_settings

pytestmark = pytest.mark.integration

# A word no document of the stack contains, so a BM25 search for it finds only the document written here.
RARE_WORD = "quinfolazine"
METRIC = re.compile(r'^retrieve_cache_(hits|misses)_total\{cache="(\w+)"\} ([0-9.]+)$', re.MULTILINE)


@pytest.fixture(scope="module")
def api(stack: ApiStack, client: OpenSearch) -> Iterator[FlaskClient]:
    """An app of its own (fresh caches, exact counts) with the response cache on."""
    cache = stack.settings.search.cache.model_copy(
        update={"response": CacheStoreSettings(enabled=True, max_entries=64, ttl_s=600)}
    )
    settings = stack.settings.model_copy(
        update={"search": stack.settings.search.model_copy(update={"cache": cache})}
    )
    yield create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()


def _search(api: FlaskClient, body: dict[str, Any], key: str = "a-search") -> dict[str, Any]:
    response = api.post("/v1/search", json=body, headers=headers(key))
    assert response.status_code == 200, response.get_data(as_text=True)
    answer: dict[str, Any] = response.get_json()
    return answer


def _counts(api: FlaskClient) -> dict[tuple[str, str], float]:
    text = api.get("/metrics").get_data(as_text=True)
    return {(cache, kind): float(value) for kind, cache, value in METRIC.findall(text)}


def _without(metadata: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k not in keys}


def test_the_service_reports_each_models_digest_and_normalizer(stack: ApiStack) -> None:
    url = f"http://127.0.0.1:{stack.service_port}/v1/models"
    models = {m["name"]: m for m in requests.get(url, timeout=10).json()["models"]}
    dense, sparse = models[stack.settings.models.dense], models[stack.settings.models.sparse]
    assert re.fullmatch(r"[0-9a-f]{32}", dense["digest"]) and re.fullmatch(r"[0-9a-f]{32}", sparse["digest"])
    assert dense["digest"] != sparse["digest"]
    for model in (dense, sparse):
        assert model["tokenizer"]["normalizer"]["type"] == "BertNormalizer"
        assert model["tokenizer"]["normalizer"]["lowercase"] is True
        assert model["tokenizer"]["pre_tokenizer"]["type"] == "BertPreTokenizer"


def test_no_answer_says_what_another_tenant_asked(api: FlaskClient) -> None:
    # Issue 73: the encoding cache was shared, so metadata.cache.encodings said "hit" when any key of any
    # tenant had asked the same question recently (and the hit answered faster).
    def encodings(text: str, key: str) -> dict[str, str]:
        answer = _search(api, {"query": text, "size": 3, "boosts": False}, key)
        return dict(answer["metadata"]["cache"]["encodings"])

    misses, hits = {"dense": "miss", "splade": "miss"}, {"dense": "hit", "splade": "hit"}
    assert encodings("which anticoagulant doses were compared", "a-search") == misses
    assert encodings("which anticoagulant doses were compared", "b-search") == misses  # not tenant a's
    # tenant b's own question again, as the models see it (another casing: not the same whole answer)
    assert encodings("Which anticoagulant doses were COMPARED", "b-search") == hits


def test_a_repeated_query_is_served_from_the_caches_with_the_same_answer(api: FlaskClient) -> None:
    before = _counts(api)
    first = _search(api, {"query": "Warfarin  bleeding RISK", "size": 5, "boosts": False})
    assert first["metadata"]["cache"]["encodings"] == {"dense": "miss", "splade": "miss"}
    assert first["metadata"]["cache"]["response"] == "miss"
    assert first["metadata"]["cache"]["state_ms"] > 0
    # The same text as the models see it (lowercased, whitespace collapsed): encoded from the cache.
    second = _search(api, {"query": "warfarin bleeding risk", "size": 5, "boosts": False})
    assert second["metadata"]["cache"]["encodings"] == {"dense": "hit", "splade": "hit"}
    assert second["metadata"]["timings"]["encode_ms"] == {}
    assert second["metadata"]["cache"]["response"] == "miss"  # the answer echoes the text: not merged
    assert [(r["chunk_id"], r["score"]) for r in second["results"]] == [
        (r["chunk_id"], r["score"]) for r in first["results"]
    ]
    third = _search(api, {"query": "warfarin bleeding risk", "size": 5, "boosts": False})
    cache = third["metadata"]["cache"]
    assert cache["response"] == "hit" and cache["encodings"] == {}
    assert cache["state_ms"] == third["metadata"]["timings"]["opensearch_round_trip_ms"]  # all it did
    assert third["results"] == second["results"]
    assert _without(third["metadata"], "cache", "timings") == _without(second["metadata"], "cache", "timings")
    after = _counts(api)
    moved = {key: after[key] - before.get(key, 0.0) for key in after}
    assert moved == {
        ("encoding", "hits"): 2,
        ("encoding", "misses"): 2,
        ("response", "hits"): 1,
        ("response", "misses"): 2,
    }
    metrics = api.get("/metrics").get_data(as_text=True)
    rate = re.search(r'^retrieve_cache_hit_rate\{cache="response"\} ([0-9.]+)$', metrics, re.MULTILINE)
    hits, misses = after[("response", "hits")], after[("response", "misses")]
    assert rate is not None and float(rate.group(1)) == pytest.approx(hits / (hits + misses))


def test_a_write_to_the_index_or_a_metadata_change_makes_the_next_request_a_miss(
    api: FlaskClient, stack: ApiStack, client: OpenSearch
) -> None:
    body = {"query": f"{RARE_WORD} toxicity", "components": ["bm25"], "boosts": False}
    index = f"{stack.prefix}-a"
    before = _search(api, body)
    assert before["metadata"]["cache"]["response"] == "miss"
    assert _search(api, body)["metadata"]["cache"]["response"] == "hit"
    template = client.search(index=index, body={"size": 1, "query": {"term": {"tenant_id": "tenant-a"}}})
    source = template["hits"]["hits"][0]["_source"]
    chunk_id = "cache-test:chunk:0"
    written = {
        **source,
        "chunk_id": chunk_id,
        "doc_id": "cache-test",
        "text": f"{RARE_WORD} toxicity in rats",
    }
    client.index(index=index, id=chunk_id, body=written, params={"refresh": "true"})
    try:
        fresh = _search(api, body)
        assert fresh["metadata"]["cache"]["response"] == "miss"
        assert chunk_id in [r["chunk_id"] for r in fresh["results"]]
        assert chunk_id not in [r["chunk_id"] for r in before["results"]]
        assert _search(api, body)["metadata"]["cache"]["response"] == "hit"
        client.indices.put_settings(index=index, body={"index": {"max_result_window": 10000}})
        assert _search(api, body)["metadata"]["cache"]["response"] == "miss"
    finally:
        client.delete(index=index, id=chunk_id, params={"refresh": "true"})
        client.indices.put_settings(index=index, body={"index": {"max_result_window": None}})
