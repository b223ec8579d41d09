"""Which queries are timed, in which order, and the request bodies each path sends for them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from control_plane.errors import BiohybridError
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.query.components import COMPONENT_ORDER, text_hybrid_query
from control_plane.search.request import EXCLUDED_SOURCE
from control_plane.search.spec import DEFAULT_CANDIDATE_DEPTH, SearchSpec
from control_plane.testsets.catalog import Query, is_test_split, load_test_set
from control_plane.testsets.stratify import sample_key

NAMED_PIPELINES = {"rrf": "hybrid-rrf", "weighted": "hybrid-minmax"}
T = TypeVar("T")


class UsageError(BiohybridError, ValueError):
    """A bad argument (configuration name, test set id, count)."""


def load_queries(test_set_ids: Sequence[str]) -> list[Query]:
    """The texts of train/dev splits; a test split is refused (it is for quality reports only)."""
    for test_set_id in test_set_ids:
        if is_test_split(test_set_id):
            raise UsageError(f"{test_set_id!r} is a test split: latency queries come from train/dev only")
    return [query for test_set_id in test_set_ids for query in load_test_set(test_set_id).queries()]


def draw_queries(queries: Sequence[Query], count: int, seed: str, skip: int = 0) -> list[Query]:
    """``count`` queries in the seeded hash order (stable across runs and machines), starting after the
    first ``skip``, cycling when the list runs out."""
    if count < 0 or skip < 0:
        raise ValueError(f"count and skip must be >= 0, got {count} and {skip}")
    if not queries:
        raise ValueError("no queries to draw from")
    ordered = sorted({q.query_id: q for q in queries}.values(), key=lambda q: sample_key(seed, q.query_id))
    return [ordered[(skip + i) % len(ordered)] for i in range(count)]


def query_source(pool: Sequence[Query], test_set_ids: Sequence[str], count: int, seed: str) -> str:
    """Where the timed queries come from, as the report states it: sets, distinct queries, order, repeats."""
    distinct = len({q.query_id for q in pool})
    repeats = f"cycled {count / distinct:.2f} times" if count > distinct else "no repeats"
    order = f"sha256('{seed}:<query id>')"
    return f"{' + '.join(test_set_ids)} ({distinct:,} queries) ordered by {order}, {repeats}"


def rotated(items: Sequence[T], shift: int) -> list[T]:
    """``items`` started at position ``shift`` (mod len): query i runs the configurations in this order."""
    if not items:
        return []
    cut = shift % len(items)
    return [*items[cut:], *items[:cut]]


def search_body(configuration: EvalConfiguration, query: str, size: int) -> dict[str, Any]:
    """The /v1/search body for a configuration; the rest is the API's defaults (chunk results with
    highlights), as a client sends it. Validated here so a bad configuration fails once, not 1,000 times."""
    body: dict[str, Any] = {
        "query": query,
        "size": size,
        "components": list(configuration.components),
        "fusion_method": configuration.fusion_method,
        "rank_constant": configuration.rank_constant,
        "rerank": configuration.rerank,
        "boosts": configuration.boosts,
    }
    if configuration.weights is not None:
        body["weights"] = dict(configuration.weights)
    if configuration.rerank_top_n is not None:
        body["rerank_top_n"] = configuration.rerank_top_n
    if configuration.candidate_depth is not None:
        body["candidate_depth"] = configuration.candidate_depth
    SearchSpec.model_validate(body)
    return body


def text_request(
    configuration: EvalConfiguration,
    query: str,
    size: int,
    rerank_top_n: int,
    default_depth: int = DEFAULT_CANDIDATE_DEPTH,
) -> tuple[str, dict[str, Any]] | None:
    """(named pipeline, body) of the text-only path, or None when the configuration needs the API
    (clinical boosts). Clauses as `biohybrid query` sends them, with the depth per component (k-NN k,
    pagination_depth) and the answer size of the matching /v1/search, so the work matches."""
    if configuration.boosts:
        return None
    depth = SearchSpec.model_validate(search_body(configuration, query, size)).candidate_depth
    depth = depth or default_depth  # the API's search.candidate_depth when the body leaves it out
    clauses = text_hybrid_query(query, k=depth)["hybrid"]["queries"]
    chosen = [c for name, c in zip(COMPONENT_ORDER, clauses, strict=True) if name in configuration.components]
    body: dict[str, Any] = {
        "size": (configuration.rerank_top_n or rerank_top_n) if configuration.rerank else size,
        "_source": {"excludes": list(EXCLUDED_SOURCE)},
        "query": {"hybrid": {"queries": chosen, "pagination_depth": depth}},
    }
    pipeline = NAMED_PIPELINES[configuration.fusion_method]
    if configuration.rerank:
        pipeline += "-rerank"
        body["ext"] = {"rerank": {"query_context": {"query_text": query}}}
    return pipeline, body
