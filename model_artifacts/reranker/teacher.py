"""The fused ensemble as a teacher: a hybrid pipeline's score for each mined training passage.

Distillation (issue 51 item 2) pulls the cross-encoder's group softmax towards the softmax of these
scores as well as towards the labels. The labels say which passages the judgments name; the teacher says
how the whole first stage orders the rest, including the many unjudged passages NFCorpus's labels leave
out. Only sources mined from an index have a teacher (NFCorpus, and SciFact with the ``hybrid`` miner);
MEDLINE's title → abstract pairs keep the label loss alone.

Scores come from one search per training query through the named pipeline (``hybrid-minmax``: each
component min-max normalised over its own hits, then weighted), at the mining depth. A passage the
teacher does not return in that depth gets 0, the score min-max gives the list's last hit. The file
``<source>-teacher-<pipeline>.jsonl`` sits beside the training data it scores, and the data manifest
records its sha256 under ``teachers``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from opensearchpy import OpenSearch

from control_plane.query.components import text_hybrid_query
from model_artifacts.reranker.pairs import TrainQuery

TEACHER_SOURCES: tuple[str, ...] = ("nfcorpus", "scifact")
"""Sources whose passages live in an index the pipeline can score."""


def fused_scores(client: OpenSearch, index: str, text: str, depth: int, pipeline: str) -> dict[str, float]:
    """Chunk id → score of the pipeline's top ``depth`` hits for ``text``, best first (the plain-text hybrid
    query a client sends); the hybrid miner reads the same search for its ids."""
    answer = client.search(
        index=index,
        body={"size": depth, "_source": False, "query": text_hybrid_query(text, k=depth)},
        params={"search_pipeline": pipeline},
    )
    return {hit["_id"]: float(hit["_score"]) for hit in answer["hits"]["hits"]}


def teacher_record(query: TrainQuery, scored: Mapping[str, float]) -> dict[str, Any]:
    """The teacher's score of each of the query's positives and negatives; 0 for one it did not return."""
    passages = sorted(set(query.positives) | set(query.negatives))
    return {"query_id": query.query_id, "scores": {p: float(scored.get(p, 0.0)) for p in passages}}


def teacher_targets(scores: Sequence[float], temperature: float) -> tuple[float, ...]:
    """The teacher's distribution over a group: softmax(score / temperature)."""
    if temperature <= 0:
        raise ValueError(f"temperature must be > 0, got {temperature}")
    if not scores:
        raise ValueError("a group has at least one passage")
    top = max(scores)
    weights = [math.exp((s - top) / temperature) for s in scores]
    total = sum(weights)
    return tuple(w / total for w in weights)


def group_loss(log_probs: Any, labels: Any, teacher: Any, weight: float) -> Any:
    """Per group (rows): the cross-entropy from the label distribution plus ``weight`` × the cross-entropy
    from the teacher's; a row of zeros in ``teacher`` (a group without one) adds nothing. Works on numpy
    arrays and torch tensors alike."""
    return -(labels * log_probs).sum(-1) - weight * (teacher * log_probs).sum(-1)


def teacher_file(source: str, pipeline: str) -> str:
    return f"{source}-teacher-{pipeline}.jsonl"


def parse_teacher(records: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    return {str(r["query_id"]): {str(k): float(v) for k, v in r["scores"].items()} for r in records}
