from typing import Any

import pytest

from control_plane.search.query_cache.encodings import EncodingKey, encoding_key
from control_plane.search.query_cache.index_state import state_token
from control_plane.search.query_cache.normalise import exact
from control_plane.search.query_cache.responses import response_key
from control_plane.search.query_cache.served import ServedModel
from control_plane.search.spec import SearchSpec

MODELS = {"served:bge-small": "d1", "served:splade-tiny": "s1"}


def _spec(**fields: Any) -> SearchSpec:
    return SearchSpec.model_validate({"query": "statin myopathy", "candidate_depth": 100, **fields})


def _key(spec: SearchSpec | None = None, **parts: Any) -> str:
    arguments = {"tenant_id": "t1", "index": "chunks-*", "state": "s0", "models": MODELS, **parts}
    return response_key(spec or _spec(), **arguments)


def test_the_same_request_has_the_same_key_whatever_its_field_order() -> None:
    reordered = SearchSpec.model_validate({"candidate_depth": 100, "query": "statin myopathy"})
    assert _key(reordered) == _key(_spec())
    assert _key(_spec(components=["dense", "bm25", "splade"])) == _key(_spec())  # put in canonical order


@pytest.mark.parametrize(
    "change",
    [
        {"spec": _spec(query="statin  myopathy")},  # texts are not merged: the answer echoes the query
        {"spec": _spec(size=11)},
        {"spec": _spec(rerank=True)},
        {"spec": _spec(filters={"source": ["pmc"]})},
        {"tenant_id": "t2"},
        {"index": "chunks-t1"},
        {"state": "s1"},
        {"models": {**MODELS, "served:bge-small": "d2"}},
    ],
)
def test_anything_that_can_change_the_answer_changes_the_key(change: dict[str, Any]) -> None:
    assert _key(**change) != _key()


def test_an_encoding_key_is_the_tenant_the_component_the_served_digest_and_the_normalised_text() -> None:
    model = ServedModel("bge-small", "d1", str.lower)
    assert encoding_key("t", "dense", model, "Statin") == EncodingKey("t", "dense", "d1", "statin")
    assert encoding_key("t", "dense", ServedModel("bge-small", "d2", exact), "Statin") == EncodingKey(
        "t", "dense", "d2", "Statin"
    )


def test_the_state_token_ignores_the_order_it_was_read_in() -> None:
    first = {"indices": {"a": {"uuid": "u1"}, "b": {"uuid": "u2"}}, "cluster_state": ["c", 7]}
    second = {"cluster_state": ["c", 7], "indices": {"b": {"uuid": "u2"}, "a": {"uuid": "u1"}}}
    assert state_token(first) == state_token(second)
    assert state_token({**first, "cluster_state": ["c", 8]}) != state_token(first)
