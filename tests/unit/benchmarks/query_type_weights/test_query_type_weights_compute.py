"""Per-query-type weight choice on a hand-made split: the type whose right answers only BM25 finds
gets BM25-heavy weights; chunk-level collections rank chunks, not documents."""

from __future__ import annotations

from dataclasses import replace

from benchmarks.fusion_grid.compute import Setting, Split
from benchmarks.query_type_weights.compute import at_chunk_level, choose

CURRENT = Setting("weighted", (0.2, 0.2, 0.6))
TYPES = {"toy/dev": {"q1": "exact_term", "q2": "paraphrase"}}


def _split() -> Split:
    # q1 (exact_term): BM25 ranks the judged chunk first, dense and splade rank it last.
    # q2 (paraphrase): dense ranks it first, BM25 last.
    lists = {
        "q1": {
            "bm25": {"a": 9.0, "b": 1.0, "c": 0.5},
            "splade": {"b": 3.0, "c": 2.0, "a": 1.0},
            "dense": {"b": 0.9, "c": 0.8, "a": 0.1},
        },
        "q2": {
            "bm25": {"b": 9.0, "c": 5.0, "a": 1.0},
            "splade": {"b": 3.0, "c": 2.0, "a": 1.0},
            "dense": {"a": 0.9, "c": 0.5, "b": 0.1},
        },
    }
    qrels = {"q1": {"A": 1}, "q2": {"A": 1}}  # judged by document
    return Split("toy/dev", "idx", qrels, lists, {"a": "A", "b": "B", "c": "C"})


def test_each_type_gets_the_weights_its_queries_prefer() -> None:
    choices = {c.query_type: c for c in choose([_split()], TYPES, CURRENT, depth=10)}
    assert set(choices) == {"exact_term", "paraphrase"}
    exact = choices["exact_term"]
    assert exact.best.weights[0] >= 0.5 and exact.gains["toy/dev"] > 0 and exact.holds_everywhere
    assert exact.counts == {"toy/dev": 1}
    # The global weights (dense 0.6) already put q2's answer first: nothing to gain, the current stays.
    assert choices["paraphrase"].gains["toy/dev"] == 0.0
    assert not choices["paraphrase"].holds_everywhere


def test_chunk_level_splits_rank_and_score_chunks() -> None:
    split = at_chunk_level(_split())
    assert split.doc_of == {"a": "a", "b": "b", "c": "c"}
    judged_by_chunk = replace(split, qrels={"q1": {"a": 1}, "q2": {"a": 1}})
    choices = {c.query_type: c for c in choose([judged_by_chunk], TYPES, CURRENT, depth=10)}
    assert choices["exact_term"].gains["toy/dev"] > 0  # chunk ids match chunk-level judgments
    by_document = choose([_split()], TYPES, CURRENT, depth=10)
    assert {c.query_type: c.gains for c in by_document} == {c.query_type: c.gains for c in choices.values()}
