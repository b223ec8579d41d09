"""The four rankings compared per fusion, and each judged question's nDCG@10 under each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from opensearchpy import OpenSearch

from control_plane.benchmarks.clinical_pipelines.measure import (
    FUSIONS,
    K,
    Ranker,
    api_ranker,
    direct,
    judged_questions,
    plain_query,
)
from control_plane.measures.metrics import ndcg_at_k
from control_plane.query.components import text_hybrid_query
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import Query

API_OFF: Final = "/v1/search off"
API_ON: Final = "/v1/search on"
DIRECT_OFF: Final = "direct off"
DIRECT_ON: Final = "direct on"
PAIRS: Final = {"/v1/search": (API_OFF, API_ON), "direct": (DIRECT_OFF, DIRECT_ON)}


def rankers(
    client: OpenSearch, service: SearchService, index: str, fusion: str, depth: int
) -> dict[str, Ranker]:
    """Boosts off and on through /v1/search's service; the README's explicit query through
    ``hybrid-<fusion>`` (off) and a plain question through ``clinical-<fusion>`` (on)."""
    suffix = FUSIONS[fusion]
    return {
        API_OFF: api_ranker(service, index, fusion, boosts=False),
        API_ON: api_ranker(service, index, fusion, boosts=True),
        DIRECT_OFF: lambda t: direct(
            client, index, f"hybrid-{suffix}", text_hybrid_query(t, pagination_depth=depth)
        ),
        DIRECT_ON: lambda t: direct(client, index, f"clinical-{suffix}", plain_query(t)),
    }


@dataclass(frozen=True)
class SplitRun:
    """One split under one fusion: its judged questions and their nDCG@10 per ranking."""

    split: str
    fusion: str
    queries: tuple[Query, ...]
    ndcg: Mapping[str, Mapping[str, float]]  # ranking label -> query id -> nDCG@10


def run_split(split: str, fusion: str, paths: Mapping[str, Ranker]) -> SplitRun:
    queries, qrels = judged_questions(split)
    ndcg = {
        label: {q.query_id: ndcg_at_k(qrels[q.query_id], rank(q.text), K) for q in queries}
        for label, rank in paths.items()
    }
    return SplitRun(split, fusion, queries, ndcg)
