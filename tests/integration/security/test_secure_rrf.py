"""RRF on the secured 2.19.1 node through /v1/search: the request's rank constant reaches the node
(neural-search before 3.1 reads it from ``combination.parameters``; the old form was ignored there
without a word), and RRF weights, which 2.19 cannot apply, are refused with the version named."""

from __future__ import annotations

import hashlib
import math

import pytest
from flask.testing import FlaskClient
from integration.security.conftest import SecureNode
from integration.security.test_tenant_leak_matrix import API_KEYS

from control_plane.api.app import create_app
from control_plane.config.api_settings import ApiKey

pytestmark = pytest.mark.integration


def _api(node: SecureNode) -> FlaskClient:
    keys = tuple(
        ApiKey(sha256=hashlib.sha256(key.encode()).hexdigest(), tenant=tenant, name=key)
        for tenant, key in API_KEYS.items()
    )
    settings = node.settings.model_copy(update={"api": node.settings.api.model_copy(update={"keys": keys})})
    return create_app(settings).test_client()


def _key() -> dict[str, str]:
    return {"Authorization": f"Bearer {next(iter(API_KEYS.values()))}"}


def test_the_requests_rank_constant_reaches_a_2_19_node(secure_node: SecureNode) -> None:
    body = {"query": "serious adverse events", "rank_constant": 1, "explain": True, "boosts": False}
    answer = _api(secure_node).post("/v1/search", json=body, headers=_key())
    assert answer.status_code == 200, answer.get_data(as_text=True)
    results = answer.get_json()["results"]
    assert results
    # The top hits' reciprocal ranks: 1 / (1 + rank) is 0.5 at rank 1; at k = 60 none passes 1/61.
    assert max(v or 0.0 for r in results for v in r["normalized_scores"].values()) > 0.1
    for result in results:
        parts = {k: v for k, v in result["normalized_scores"].items() if v}
        for value in parts.values():
            rank = 1 / value - 1
            assert rank >= 1 and abs(rank - round(rank)) < 1e-3, (result["chunk_id"], value)
        assert math.isclose(result["score"], sum(parts.values()), rel_tol=1e-5)


def test_rrf_weights_are_refused_on_a_2_19_node_with_the_version_named(secure_node: SecureNode) -> None:
    body = {"query": "serious adverse events", "weights": {"bm25": 0.5, "splade": 0.2, "dense": 0.3}}
    answer = _api(secure_node).post("/v1/search", json=body, headers=_key())
    text = answer.get_data(as_text=True)
    assert answer.status_code == 400, text
    assert "weighted RRF needs OpenSearch 3.1.0+" in text and "2.19.1" in text
