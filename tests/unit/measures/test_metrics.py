"""Metrics: hand-computed cases, then exact agreement with pytrec_eval on a real NFCorpus dev run."""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Mapping

import pytest
import pytrec_eval

from control_plane.measures.metrics import (
    Qrels,
    Run,
    average_precision,
    evaluate,
    metric_by_name,
    mrr_at_k,
    ndcg_at_k,
    per_query,
    precision_at_k,
    rank_documents,
    recall_at_k,
)
from control_plane.testsets.catalog import load_test_set

# One query, three relevant documents (d1 grade 2, d2 and d4 grade 1), d3 judged non-relevant.
JUDGMENTS = {"d1": 2, "d2": 1, "d3": 0, "d4": 1}
# Ranked list and its grades:  rank 1 d5 (0), 2 d1 (2), 3 d3 (0), 4 d2 (1), 5 d6 (0), 6 d4 (1)
RANKING = ["d5", "d1", "d3", "d2", "d6", "d4"]
LOG2_3 = math.log2(3)  # 1.5849625
LOG2_5 = math.log2(5)  # 2.3219281
LOG2_7 = math.log2(7)  # 2.8073549
# Ideal order of the grades: 2, 1, 1 at ranks 1, 2, 3 -> 2/log2(2) + 1/log2(3) + 1/log2(4)
IDEAL_DCG = 2 / 1 + 1 / LOG2_3 + 1 / 2  # = 2 + 0.6309298 + 0.5 = 3.1309298


def test_ranking_is_score_descending_then_doc_id_descending() -> None:
    # d9 has the top score; d1, d10 and d2 tie at 1.0 and go by doc id descending as strings:
    # "d2" > "d10" > "d1" (string order, not numeric).
    scores = {"d1": 1.0, "d9": 2.0, "d10": 1.0, "d2": 1.0}
    assert rank_documents(scores) == ["d9", "d2", "d10", "d1"]


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0 / 3),  # top 1 = d5: nothing relevant
        (2, 1 / 3),  # d1 found
        (4, 2 / 3),  # d1, d2 found
        (10, 3 / 3),  # all three, list shorter than k
    ],
)
def test_recall_at_k(k: int, expected: float) -> None:
    assert recall_at_k(JUDGMENTS, RANKING, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0 / 1),
        (2, 1 / 2),
        (4, 2 / 4),
        (10, 3 / 10),  # divides by k even though only 6 documents were retrieved (trec_eval P_k)
    ],
)
def test_precision_at_k(k: int, expected: float) -> None:
    assert precision_at_k(JUDGMENTS, RANKING, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        (1, 0.0),  # first relevant (d1) is at rank 2, outside the cut
        (2, 1 / 2),
        (10, 1 / 2),
    ],
)
def test_mrr_at_k(k: int, expected: float) -> None:
    assert mrr_at_k(JUDGMENTS, RANKING, k) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("k", "expected"),
    [
        # DCG@1 = 0 (d5 is non-relevant)
        (1, 0.0),
        # DCG@2 = 2/log2(3) = 1.2618595; IDCG@2 = 2 + 1/log2(3) = 2.6309298 -> 0.4796249
        (2, (2 / LOG2_3) / (2 + 1 / LOG2_3)),
        # DCG@4 = 2/log2(3) + 1/log2(5) = 1.2618595 + 0.4306766 = 1.6925361; IDCG@4 = 3.1309298 -> 0.5405858
        (4, (2 / LOG2_3 + 1 / LOG2_5) / IDEAL_DCG),
        # DCG@10 adds d4 at rank 6: + 1/log2(7) = 0.3562072 -> 2.0487433 / 3.1309298 = 0.6543562
        (10, (2 / LOG2_3 + 1 / LOG2_5 + 1 / LOG2_7) / IDEAL_DCG),
    ],
)
def test_ndcg_at_k(k: int, expected: float) -> None:
    assert ndcg_at_k(JUDGMENTS, RANKING, k) == pytest.approx(expected)


def test_ndcg_uses_linear_graded_gain() -> None:
    judgments = {"a": 2, "b": 1}
    # Perfect order: DCG = IDCG = 2/log2(2) + 1/log2(3)
    assert ndcg_at_k(judgments, ["a", "b"], 2) == pytest.approx(1.0)
    # Swapped: DCG = 1/1 + 2/log2(3) = 1 + 1.2618595 = 2.2618595; IDCG = 2 + 0.6309298 = 2.6309298
    # -> 0.8597186. (Exponential gain 2**rel - 1 would give (1 + 3/log2(3)) / (3 + 1/log2(3)) = 0.7967.)
    assert ndcg_at_k(judgments, ["b", "a"], 2) == pytest.approx((1 + 2 / LOG2_3) / (2 + 1 / LOG2_3))
    assert ndcg_at_k(judgments, ["b", "a"], 2) == pytest.approx(0.8597186)


def test_ndcg_ideal_counts_relevant_documents_never_retrieved() -> None:
    # Only "a" (grade 1) is retrieved, at rank 1: DCG@5 = 1. The ideal holds c (2) and a (1):
    # IDCG@5 = 2/1 + 1/log2(3) = 2.6309298 -> 1 / 2.6309298 = 0.3800938
    assert ndcg_at_k({"a": 1, "c": 2}, ["a", "x"], 5) == pytest.approx(1 / (2 + 1 / LOG2_3))


def test_average_precision_whole_ranking_and_cut() -> None:
    # Relevant at ranks 2, 4, 6: precisions 1/2, 2/4, 3/6 -> (0.5 + 0.5 + 0.5) / 3 relevant = 0.5
    assert average_precision(JUDGMENTS, RANKING) == pytest.approx(0.5)
    # Cut at 4: ranks 2 and 4 only, still divided by all 3 relevant: (0.5 + 0.5) / 3 = 0.3333333
    assert average_precision(JUDGMENTS, RANKING, 4) == pytest.approx(1 / 3)
    # Cut at 1: no relevant document in the top 1
    assert average_precision(JUDGMENTS, RANKING, 1) == 0.0


def test_negative_and_zero_grades_are_non_relevant() -> None:
    judgments = {"a": -1, "b": 0, "c": 1}
    ranking = ["a", "b", "c"]
    assert recall_at_k(judgments, ranking, 2) == 0.0  # a, b carry no relevance
    assert precision_at_k(judgments, ranking, 3) == pytest.approx(1 / 3)
    assert mrr_at_k(judgments, ranking, 3) == pytest.approx(1 / 3)
    # DCG@3 = 1/log2(4) = 0.5; IDCG@3 = 1 (only c is relevant) -> 0.5
    assert ndcg_at_k(judgments, ranking, 3) == pytest.approx(0.5)
    assert average_precision(judgments, ranking) == pytest.approx(1 / 3)  # 1/3 precision at rank 3, 1 rel


def test_no_relevant_documents_scores_zero() -> None:
    judgments = {"a": 0}
    for metric in (recall_at_k, precision_at_k, mrr_at_k, ndcg_at_k, average_precision):
        assert metric(judgments, ["a"], 5) == 0.0
    assert ndcg_at_k(judgments, [], 5) == 0.0


def test_ties_are_broken_by_doc_id_descending_in_every_metric() -> None:
    # All three documents score 1.0, so the order is c, b, a.
    run: Run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    names = ["mrr@10", "p@1", "ndcg@3", "map", "recall@2"]
    only_a_relevant = evaluate({"q": {"a": 1}}, run, names)
    # a is at rank 3: mrr 1/3; p@1 0; ndcg@3 = (1/log2(4)) / 1 = 0.5; AP = (1/3) / 1; recall@2 = 0
    assert only_a_relevant == pytest.approx(
        {"mrr@10": 1 / 3, "p@1": 0.0, "ndcg@3": 0.5, "map": 1 / 3, "recall@2": 0.0}
    )
    only_c_relevant = evaluate({"q": {"c": 1}}, run, names)
    # c is at rank 1: every metric is perfect
    assert only_c_relevant == pytest.approx(
        {"mrr@10": 1.0, "p@1": 1.0, "ndcg@3": 1.0, "map": 1.0, "recall@2": 1.0}
    )


def test_evaluate_averages_over_judged_queries_and_counts_missing_ones_as_zero() -> None:
    qrels: Qrels = {
        "q1": {"d1": 1},  # retrieved at rank 1 -> mrr 1
        "q2": {"d2": 1},  # absent from the run -> mrr 0
        "q3": {"d3": 0},  # no relevant document -> not evaluated at all
    }
    run: Run = {"q1": {"d1": 0.9, "d7": 0.1}, "q3": {"d3": 1.0}, "q4": {"d4": 1.0}}  # q4: not in qrels
    assert per_query(qrels, run, ["mrr@10"]) == {"q1": {"mrr@10": 1.0}, "q2": {"mrr@10": 0.0}}
    # mean over q1 and q2: (1 + 0) / 2
    assert evaluate(qrels, run, ["mrr@10"]) == {"mrr@10": 0.5}


def test_evaluate_without_any_relevant_query_raises() -> None:
    with pytest.raises(ValueError, match="no query in qrels has a relevant document"):
        evaluate({"q": {"d": 0}}, {"q": {"d": 1.0}}, ["ndcg@10"])


@pytest.mark.parametrize("name", ["ndcg", "ndcg@0", "ndcg@ten", "mrr@-1", "foo@10", "recall@", "", "P@1.5"])
def test_unknown_metric_name_raises_naming_it_and_listing_valid_names(name: str) -> None:
    with pytest.raises(ValueError, match="valid metrics: ndcg@K, recall@K, mrr@K, p@K, map, map@K") as error:
        metric_by_name(name)
    assert repr(name) in str(error.value)


def test_unknown_metric_fails_before_any_work() -> None:
    with pytest.raises(ValueError, match="'ndcg@x'"):
        evaluate({"q": {"d": 1}}, {}, ["ndcg@10", "ndcg@x"])


def test_metric_names_are_case_insensitive() -> None:
    assert metric_by_name("P@4")(JUDGMENTS, RANKING) == metric_by_name("p@4")(JUDGMENTS, RANKING) == 0.5


def test_hand_computed_case_agrees_with_pytrec_eval() -> None:
    qrels = {"q": JUDGMENTS}
    # Scores that give RANKING, with d3 and d2 tied (d3 > d2 as strings, so d3 keeps rank 3).
    run = {"q": {"d5": 5.0, "d1": 4.0, "d3": 3.0, "d2": 3.0, "d6": 1.0, "d4": 0.5}}
    assert rank_documents(run["q"]) == RANKING
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.2,4", "recall.4", "P.4", "map", "map_cut.4"})
    expected = reference.evaluate(run)["q"]
    ours = per_query(qrels, run, ["ndcg@2", "ndcg@4", "recall@4", "p@4", "map", "map@4"])["q"]
    assert ours["ndcg@2"] == pytest.approx(expected["ndcg_cut_2"], abs=1e-12)
    assert ours["ndcg@4"] == pytest.approx(expected["ndcg_cut_4"], abs=1e-12)
    assert ours["recall@4"] == pytest.approx(expected["recall_4"], abs=1e-12)
    assert ours["p@4"] == pytest.approx(expected["P_4"], abs=1e-12)
    assert ours["map"] == pytest.approx(expected["map"], abs=1e-12)
    assert ours["map@4"] == pytest.approx(expected["map_cut_4"], abs=1e-12)


# --- agreement with pytrec_eval on a real run ---------------------------------------------------------

RUN_DEPTH = 100
# our metric name -> pytrec_eval output key, on the depth-100 run
PYTREC_EQUIVALENTS = {
    "ndcg@10": "ndcg_cut_10",
    "ndcg@100": "ndcg_cut_100",
    "recall@10": "recall_10",
    "recall@100": "recall_100",
    "p@5": "P_5",
    "p@10": "P_10",
    "map": "map",
    "map@10": "map_cut_10",
    "map@100": "map_cut_100",
    "mrr@100": "recip_rank",  # recip_rank has no cut; the run already stops at 100
}
PYTREC_MEASURES = {"ndcg_cut.10,100", "recall.10,100", "P.5,10", "map", "map_cut.10,100", "recip_rank"}


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _tf_idf_run(
    postings: Mapping[str, list[tuple[str, int]]], doc_count: int, query_text: str
) -> dict[str, float]:
    """Top documents by sum of idf * (1 + ln tf) over query terms, scores rounded to 1 decimal so that
    ties are common and tie-breaking is tested on real data."""
    scores: defaultdict[str, float] = defaultdict(float)
    for term in set(_tokens(query_text)):
        documents = postings.get(term, [])
        if documents:
            idf = math.log(doc_count / len(documents))
            for doc_id, term_frequency in documents:
                scores[doc_id] += idf * (1 + math.log(term_frequency))
    rounded = {doc_id: round(score, 1) for doc_id, score in scores.items()}
    return {doc_id: rounded[doc_id] for doc_id in rank_documents(rounded)[:RUN_DEPTH]}


@pytest.fixture(scope="module")
def nfcorpus_dev() -> tuple[Qrels, Run]:
    test_set = load_test_set("nfcorpus/dev")
    postings: defaultdict[str, list[tuple[str, int]]] = defaultdict(list)
    doc_count = 0
    for document in test_set.corpus():
        doc_count += 1
        for term, frequency in Counter(_tokens(f"{document.title} {document.text}")).items():
            postings[term].append((document.doc_id, frequency))
    run = {query.query_id: _tf_idf_run(postings, doc_count, query.text) for query in test_set.queries()}
    return test_set.qrels(), {query_id: scores for query_id, scores in run.items() if scores}


def _reference_per_query(qrels: Qrels, run: Run, measures: set[str]) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator({q: dict(j) for q, j in qrels.items()}, measures)
    result: dict[str, dict[str, float]] = evaluator.evaluate({q: dict(s) for q, s in run.items()})
    return result


def test_real_run_has_ties_inside_the_top_ten(nfcorpus_dev: tuple[Qrels, Run]) -> None:
    _, run = nfcorpus_dev
    queries_with_ties = [
        query_id
        for query_id, scores in run.items()
        if len(set(sorted(scores.values(), reverse=True)[:10])) < min(10, len(scores))
    ]
    assert len(queries_with_ties) > 50  # otherwise the agreement test below would not exercise ties


def test_every_metric_agrees_with_pytrec_eval_per_query(nfcorpus_dev: tuple[Qrels, Run]) -> None:
    qrels, run = nfcorpus_dev
    reference = _reference_per_query(qrels, run, PYTREC_MEASURES)
    ours = per_query(qrels, run, list(PYTREC_EQUIVALENTS))
    assert len(ours) == len(qrels) == 324
    for query_id, values in ours.items():
        for name, reference_key in PYTREC_EQUIVALENTS.items():
            # pytrec_eval omits queries without retrieved documents; those score 0 here
            expected = reference[query_id][reference_key] if query_id in reference else 0.0
            assert values[name] == pytest.approx(expected, abs=1e-6), (query_id, name)
    means = evaluate(qrels, run, list(PYTREC_EQUIVALENTS))
    for name, reference_key in PYTREC_EQUIVALENTS.items():
        expected_mean = sum(reference.get(q, {}).get(reference_key, 0.0) for q in qrels) / len(qrels)
        assert means[name] == pytest.approx(expected_mean, abs=1e-6), name


@pytest.mark.parametrize("k", [1, 3, 10])
def test_mrr_at_k_agrees_with_recip_rank_on_the_run_cut_at_k(nfcorpus_dev: tuple[Qrels, Run], k: int) -> None:
    qrels, run = nfcorpus_dev
    cut_run = {
        query_id: {d: scores[d] for d in rank_documents(scores)[:k]} for query_id, scores in run.items()
    }
    reference = _reference_per_query(qrels, cut_run, {"recip_rank"})
    ours = per_query(qrels, run, [f"mrr@{k}"])
    for query_id, values in ours.items():
        expected = reference[query_id]["recip_rank"] if query_id in reference else 0.0
        assert values[f"mrr@{k}"] == pytest.approx(expected, abs=1e-6), query_id
