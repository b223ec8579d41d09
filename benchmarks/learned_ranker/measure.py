"""The learned ranker's material: each query's fused candidates with their texts and the cross-encoder's
raw scores, cached by index state, model and query set so a re-run trains without searching again."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import requests
from opensearchpy import OpenSearch

from benchmarks.rerank_blend.compute import fused_and_scored
from control_plane.evaluation.snapshot import snapshot_key
from control_plane.locations import REPOSITORY_ROOT
from control_plane.measures.metrics import Qrels
from control_plane.testsets.catalog import load_test_set

CACHE_DIR = REPOSITORY_ROOT / ".cache" / "learned-ranker"


@dataclass(frozen=True)
class Candidates:
    """One query's fused chunks, best first, with their texts and the cross-encoder's raw scores."""

    query_id: str
    query: str
    doc_ids: list[str]
    texts: list[str]
    model_scores: list[float]


def collect(
    client: OpenSearch,
    index: str,
    pipeline: str,
    service_url: str,
    model: str,
    queries: Sequence[tuple[str, str]],
    depth: int,
    label: str,
) -> list[Candidates]:
    """The candidates of every query, from the cache when the index, model and queries are unchanged."""
    key = hashlib.sha256(
        json.dumps([snapshot_key(client, index), pipeline, model, depth, queries]).encode()
    ).hexdigest()[:12]
    path = CACHE_DIR / f"{label.replace('/', '-')}-{index}-{key}.jsonl"
    if path.is_file():
        return [Candidates(**json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines()]
    out = []
    session = requests.Session()
    for number, (query_id, text) in enumerate(queries, start=1):
        hits, scores = fused_and_scored(
            client, index, pipeline, session, f"{service_url}/v1/rerank/{model}", text, depth, depth
        )
        texts = [h["_source"]["text"] for h in hits]
        out.append(Candidates(query_id, text, [h["_source"]["doc_id"] for h in hits], texts, scores))
        if number % 100 == 0:
            print(f"  {label}: {number}/{len(queries)} queries", file=sys.stderr)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(asdict(c)) + "\n" for c in out), encoding="utf-8")
    return out


def gather(
    client: OpenSearch,
    split: tuple[str, str],
    pipeline: str,
    service_url: str,
    model: str,
    depth: int,
    limit: int | None = None,
) -> tuple[list[Candidates], Qrels]:
    """One ``(test set, index)`` split's candidates and judgments; ``limit``: a fixed sample of its
    queries by id hash (the same queries on every run, so the cache holds)."""
    data = load_test_set(split[0])
    queries = [(q.query_id, q.text) for q in data.queries()]
    if limit is not None:
        queries = sorted(queries, key=lambda q: hashlib.sha256(q[0].encode()).hexdigest())[:limit]
    print(f"collecting {split[0]} ({len(queries)} queries) from {split[1]}", file=sys.stderr)
    return collect(client, split[1], pipeline, service_url, model, queries, depth, split[0]), data.qrels()
