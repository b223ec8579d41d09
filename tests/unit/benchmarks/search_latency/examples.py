"""Configurations and samples the search latency tests share."""

from __future__ import annotations

from benchmarks.search_latency.samples import Sample
from control_plane.evaluation.configurations import EvalConfiguration

BM25 = EvalConfiguration(name="bm25", components=("bm25",))
RRF = EvalConfiguration(name="hybrid-rrf", components=("bm25", "splade", "dense"))
MINMAX = EvalConfiguration(
    name="hybrid-minmax",
    components=("bm25", "splade", "dense"),
    fusion_method="weighted",
    weights={"bm25": 0.3, "splade": 0.35, "dense": 0.35},
)
RRF_RERANK = RRF.model_copy(update={"name": "hybrid-rrf+rerank", "rerank": True})


def sample(ms: float | None, configuration: str = "bm25", path: str = "api", **extra: object) -> Sample:
    return Sample(path, configuration, 0, ms, error=None if ms is not None else "HTTP 503", **extra)  # type: ignore[arg-type]
