"""The runner on a table of answers: metrics, per-type means, component shares, overlaps and
significance, each against hand-computed values."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest

from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.query_sets import EvaluationSet
from control_plane.evaluation.runner import (
    EvaluationError,
    Retrieval,
    RetrievedDocument,
    component_shares,
    run_suite,
    strictly_decreasing,
    top_overlap,
)
from control_plane.testsets.catalog import Query

BM25 = EvalConfiguration(name="bm25", components=("bm25",))
DENSE = EvalConfiguration(name="dense", components=("dense",))
HYBRID = EvalConfiguration(name="hybrid-rrf", components=("bm25", "dense"))

# q1 (paraphrase): d1 and d2 relevant (grade 1). q2 (exact_term): d3 relevant (grade 2).
SET = EvaluationSet(
    test_set_id="toy/dev",
    dataset="toy",
    queries=(Query("q1", "first query"), Query("q2", "second query")),
    qrels={"q1": {"d1": 1, "d2": 1}, "q2": {"d3": 2, "d9": 0}},
    query_types={"q1": "paraphrase", "q2": "exact_term"},
)


def _doc(doc_id: str, score: float, **components: float) -> RetrievedDocument:
    return RetrievedDocument(doc_id, score, {"bm25": None, "splade": None, "dense": None, **components})


# Each configuration's answer per query text, best first.
ANSWERS: Mapping[str, Mapping[str, Sequence[RetrievedDocument]]] = {
    "bm25": {
        "first query": [_doc("d5", 3.0, bm25=3.0), _doc("d1", 2.0, bm25=2.0), _doc("d6", 1.0, bm25=1.0)],
        "second query": [_doc("d9", 2.0, bm25=2.0), _doc("d3", 1.0, bm25=1.0)],
    },
    "dense": {
        "first query": [_doc("d1", 0.9, dense=0.9), _doc("d2", 0.8, dense=0.8)],
        "second query": [_doc("d3", 0.7, dense=0.7)],
    },
    "hybrid-rrf": {
        "first query": [
            _doc("d1", 0.5, bm25=2.0, dense=0.9),
            _doc("d2", 0.4, dense=0.8),
            _doc("d5", 0.3, bm25=3.0),
            _doc("d1", 0.2, bm25=2.0, dense=0.9),  # a repeated document is dropped
        ],
        "second query": [_doc("d3", 0.5, bm25=1.0, dense=0.7), _doc("d9", 0.5, bm25=2.0)],  # a tie
    },
}


class TableRetriever:
    """Answers from ANSWERS; records the depth asked for."""

    def __init__(self) -> None:
        self.depths: list[int] = []

    def retrieve(self, query: str, configuration: EvalConfiguration, depth: int) -> Retrieval:
        self.depths.append(depth)
        degraded = ["dense_timeout"] if configuration.name == "dense" and query == "second query" else []
        return Retrieval(documents=ANSWERS[configuration.name][query], degraded=degraded)


def test_metrics_by_configuration_and_query_type() -> None:
    suite = run_suite(TableRetriever(), [BM25, HYBRID], SET, ["recall@2", "mrr@10"], depth=10)
    bm25, hybrid = suite.result("bm25"), suite.result("hybrid-rrf")
    # bm25: q1 top 2 = d5, d1 -> recall 1/2, first relevant at rank 2 -> 1/2; q2: d9 (grade 0), d3 -> 1, 1/2
    assert bm25.per_query == {"q1": {"recall@2": 0.5, "mrr@10": 0.5}, "q2": {"recall@2": 1.0, "mrr@10": 0.5}}
    assert bm25.metrics == pytest.approx({"recall@2": 0.75, "mrr@10": 0.5})
    # hybrid: q1 d1, d2 -> 1, 1; q2: d3 kept ahead of d9 despite the tie -> 1, 1
    assert hybrid.metrics == pytest.approx({"recall@2": 1.0, "mrr@10": 1.0})
    assert bm25.by_query_type == {
        "exact_term": {"recall@2": 1.0, "mrr@10": 0.5},
        "paraphrase": {"recall@2": 0.5, "mrr@10": 0.5},
    }
    assert suite.query_type_counts == {"exact_term": 1, "paraphrase": 1}
    assert suite.query_count == 2 and suite.test_set_id == "toy/dev"
    assert list(hybrid.run["q1"]) == ["d1", "d2", "d5"]


def test_baseline_runs_first_even_when_not_asked_and_others_are_tested_against_it() -> None:
    retriever = TableRetriever()
    suite = run_suite(retriever, [HYBRID], SET, ["mrr@10"], depth=7, baseline=BM25)
    assert [r.name for r in suite.results] == ["bm25", "hybrid-rrf"]
    assert suite.baseline == "bm25" and not suite.result("bm25").significance
    test = suite.result("hybrid-rrf").significance["mrr@10"]
    # differences 0.5 and 0.5: mean 0.5; patterns (+,+) and (-,-) of 4 reach it -> p = 0.5 (exact)
    assert (test.mean_difference, test.p_value, test.exact) == (0.5, 0.5, True)
    assert set(retriever.depths) == {7}


def test_component_shares_and_overlap_with_components_run_alone() -> None:
    suite = run_suite(TableRetriever(), [BM25, DENSE, HYBRID], SET, ["mrr@10"])
    hybrid = suite.result("hybrid-rrf")
    # pooled top docs: q1 d1 (bm25, dense), d2 (dense), d5 (bm25); q2 d3 (bm25, dense), d9 (bm25)
    assert hybrid.component_share == pytest.approx({"bm25": 4 / 5, "dense": 3 / 5})
    assert hybrid.exclusive_share == pytest.approx({"bm25": 2 / 5, "dense": 1 / 5})
    # bm25's own top 10: q1 d5 d1 d6, q2 d9 d3 -> shares d1, d5, d3, d9 of 5; dense: d1 d2, d3 of 5
    assert hybrid.top10_overlap == pytest.approx({"bm25": 4 / 5, "dense": 3 / 5})
    assert suite.result("bm25").component_share == {"bm25": 1.0}
    assert suite.result("bm25").top10_overlap == {}
    assert suite.result("dense").degraded_queries == {"dense_timeout": 1}


def test_progress_reports_each_query_and_a_run_whose_every_query_failed_stops() -> None:
    calls: list[tuple[str, int, int]] = []
    run_suite(TableRetriever(), [BM25], SET, ["mrr@10"], progress=lambda *call: calls.append(call))
    assert calls == [("bm25", 1, 2), ("bm25", 2, 2)]

    class Failing:
        def __init__(self) -> None:
            self.calls = 0

        def retrieve(self, query: str, configuration: EvalConfiguration, depth: int) -> Retrieval:
            self.calls += 1
            raise RuntimeError("no component is available")

    failing = Failing()
    with pytest.raises(
        EvaluationError,
        match=r"configuration 'bm25': every one of the 2 queries failed \(2 tries each\); "
        r"the last error: RuntimeError: no component is available",
    ):
        run_suite(failing, [BM25], SET, ["mrr@10"])
    assert failing.calls == 4  # each query tried twice


class Flaky(TableRetriever):
    """The first query fails on its first try only; the second query fails every time."""

    def __init__(self) -> None:
        super().__init__()
        self.tries: dict[str, int] = {}

    def retrieve(self, query: str, configuration: EvalConfiguration, depth: int) -> Retrieval:
        self.tries[query] = self.tries.get(query, 0) + 1
        if query == "second query" or self.tries[query] == 1:
            raise ConnectionError(f"node gone ({query})")
        return super().retrieve(query, configuration, depth)


def test_a_failed_query_is_retried_once_then_recorded_as_degraded_and_the_run_goes_on() -> None:
    flaky = Flaky()
    result = run_suite(flaky, [BM25], SET, ["recall@2", "mrr@10"]).result("bm25")
    assert flaky.tries == {"first query": 2, "second query": 2}
    # q1 succeeded on its retry (as in the table: 0.5, 0.5); q2 failed twice: no documents, scores 0
    assert result.per_query == {
        "q1": {"recall@2": 0.5, "mrr@10": 0.5},
        "q2": {"recall@2": 0.0, "mrr@10": 0.0},
    }
    assert result.metrics == pytest.approx({"recall@2": 0.25, "mrr@10": 0.25})
    assert result.degraded_queries == {"query_failed": 1}
    assert result.degraded_detail == {"q2": ("query_failed: ConnectionError: node gone (second query)",)}
    assert result.run["q2"] == {}


def test_scores_become_strictly_decreasing_in_the_given_order() -> None:
    scores = strictly_decreasing([_doc("a", 1.0), _doc("b", 1.0), _doc("c", 2.0), _doc("d", 0.5)])
    assert list(scores) == ["a", "b", "c", "d"]
    assert scores["a"] == 1.0 and scores["b"] == math.nextafter(1.0, 0.0)
    assert scores["c"] == math.nextafter(scores["b"], 0.0) and scores["d"] == 0.5


def test_pure_helpers() -> None:
    assert top_overlap({"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"c": 1, "x": 2}}, k=2) == 0.0
    assert top_overlap({"q": {"a": 3, "b": 2, "c": 1}}, {"q": {"c": 1, "x": 2}}, k=3) == pytest.approx(1 / 3)
    assert component_shares([], ["bm25"]) == ({"bm25": 0.0}, {"bm25": 0.0})


def test_an_empty_set_is_refused() -> None:
    empty = EvaluationSet("none", "toy", (), {}, {})
    with pytest.raises(ValueError, match="no judged query"):
        run_suite(TableRetriever(), [BM25], empty, ["mrr@10"])
