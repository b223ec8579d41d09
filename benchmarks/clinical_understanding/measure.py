"""The four rankings compared per fusion, and each judged question's nDCG@10 under each."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from opensearchpy import OpenSearch

from benchmarks.clinical_pipelines.measure import (
    FUSIONS,
    K,
    Ranker,
    api_ranker,
    direct,
    judged_questions,
    plain_query,
    service_chunk_ids,
)
from control_plane.measures.metrics import ndcg_at_k
from control_plane.query.components import text_hybrid_query
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import Query

API_OFF: Final = "/v1/search off"
API_ON: Final = "/v1/search on"
API_EXPECTED: Final = "/v1/search expected"
DIRECT_OFF: Final = "direct off"
DIRECT_ON: Final = "direct on"
PAIRS: Final = {"/v1/search": (API_OFF, API_ON), "direct": (DIRECT_OFF, DIRECT_ON)}


def expected_ranker(
    service: SearchService, index: str, fusion: str, intents: Mapping[str, Sequence[str]]
) -> Ranker:
    """/v1/search's service with each question's labelled intents as ``query_intent`` (detection
    skipped): what routing gives when detection is right. A question labelled with no intent is
    searched with boosts off."""

    def rank(text: str) -> list[str]:
        named = list(intents.get(text, ()))
        body = {"query": text, "size": K, "fusion_method": fusion, "boosts": bool(named)}
        return service_chunk_ids(service, index, {**body, **({"query_intent": named} if named else {})})

    return rank


def rankers(
    client: OpenSearch,
    service: SearchService,
    index: str,
    fusion: str,
    depth: int,
    intents: Mapping[str, Sequence[str]],
) -> dict[str, Ranker]:
    """Boosts off, on (detected) and with the labelled intents (``intents``: question text -> labels)
    through /v1/search's service; the README's explicit query through ``hybrid-<fusion>`` (off) and a
    plain question through ``clinical-<fusion>`` (on)."""
    suffix = FUSIONS[fusion]
    return {
        API_OFF: api_ranker(service, index, fusion, boosts=False),
        API_ON: api_ranker(service, index, fusion, boosts=True),
        API_EXPECTED: expected_ranker(service, index, fusion, intents),
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
    # ranking label -> query id -> whether a grade-2 chunk (an answer) is in the top 3
    top3: Mapping[str, Mapping[str, bool]] = field(default_factory=dict)


def answered_within(judgments: Mapping[str, int], ranking: Sequence[str], k: int = 3) -> bool:
    """Whether a chunk judged 2 (it answers the question) is in the first ``k``."""
    return any(judgments.get(chunk_id, 0) >= 2 for chunk_id in ranking[:k])


def run_split(split: str, fusion: str, paths: Mapping[str, Ranker]) -> SplitRun:
    queries, qrels = judged_questions(split)
    ndcg: dict[str, dict[str, float]] = {}
    top3: dict[str, dict[str, bool]] = {}
    for label, rank in paths.items():
        ndcg[label], top3[label] = {}, {}
        for q in queries:
            ranking = rank(q.text)
            ndcg[label][q.query_id] = ndcg_at_k(qrels[q.query_id], ranking, K)
            top3[label][q.query_id] = answered_within(qrels[q.query_id], ranking)
    return SplitRun(split, fusion, queries, ndcg, top3)
