"""Two hand-made queries the rerank-blend tests share: q1's model prefers b (chunk 3 repeats document a)."""

from __future__ import annotations

from benchmarks.rerank_blend.compute import Candidates

QRELS = {"q1": {"b": 1}, "q2": {"x": 2}}
ITEMS = [
    Candidates("q1", ["a", "b", "a", "c"], [0.0, 5.0]),  # the model prefers b; chunk 3 repeats document a
    Candidates("q2", ["x", "y"], [1.0, 0.0]),
]
