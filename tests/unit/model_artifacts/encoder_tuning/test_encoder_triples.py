"""Training triples for the dense encoder: draws, one step's slots, and the in-batch false-negative mask."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model_artifacts.encoder_tuning.pairs import Triple, draw_triple, false_negative_mask, step_triples
from model_artifacts.reranker.data import SourceData, TrainingData
from model_artifacts.reranker.pairs import TrainQuery

PASSAGES = {"p1": "one", "p2": "two", "n1": "neg one", "n2": "neg two"}


def _query(positives: dict[str, int], negatives: tuple[str, ...], query_id: str = "q") -> TrainQuery:
    return TrainQuery("nfcorpus", query_id, f"text of {query_id}", positives, negatives)


def test_a_triple_takes_a_graded_positive_and_a_mined_negative_with_their_texts() -> None:
    triple = draw_triple(_query({"p1": 2, "p2": 0}, ("n1",)), PASSAGES, np.random.default_rng(0))
    # p2 has gain 0, so p1 is the only positive that can be drawn; n1 the only negative.
    assert triple == Triple("nfcorpus", "text of q", "p1", "one", "n1", "neg one")


def test_positives_are_drawn_in_proportion_to_their_gain() -> None:
    query = _query({"p1": 3, "p2": 1}, ("n1", "n2"))
    rng = np.random.default_rng(7)
    drawn = [draw_triple(query, PASSAGES, rng).positive_id for _ in range(4000)]
    assert drawn.count("p1") / len(drawn) == pytest.approx(0.75, abs=0.03)


def test_a_query_without_a_negative_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="nfcorpus/q needs a positive and a negative"):
        draw_triple(_query({"p1": 1}, ()), PASSAGES, np.random.default_rng(0))


def test_one_step_takes_each_slot_from_its_source_and_query_index() -> None:
    queries = [_query({"p1": 1}, ("n1",), "a"), _query({"p2": 1}, ("n2",), "b")]
    data = TrainingData(Path(), {"nfcorpus": SourceData(queries, PASSAGES)}, [], {}, {})
    slots = np.array([[0, 1], [0, 0]], dtype=np.int64)
    triples = step_triples(data, ("nfcorpus",), slots, seed=13, step=0)
    assert [t.query for t in triples] == ["text of b", "text of a"]
    assert [(t.positive_id, t.negative_id) for t in triples] == [("p2", "n2"), ("p1", "n1")]


def test_a_passage_that_is_another_slots_copy_of_my_positive_is_masked() -> None:
    triples = [
        Triple("s", "q0", "p1", "", "n1", ""),
        Triple("s", "q1", "p1", "", "p2", ""),  # shares q0's positive
        Triple("s", "q2", "p2", "", "n2", ""),
    ]
    # Columns: positives p1 p1 p2, then negatives n1 p2 n2.
    expected = np.array(
        [
            [False, True, False, False, False, False],
            [True, False, False, False, False, False],
            [False, False, False, False, True, False],  # q1's hard negative is q2's positive
        ]
    )
    assert (false_negative_mask(triples) == expected).all()
