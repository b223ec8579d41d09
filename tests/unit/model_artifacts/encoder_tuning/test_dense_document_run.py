"""Exact dense search scored by document: each document takes its best passage's score."""

from __future__ import annotations

import numpy as np

from model_artifacts.encoder_tuning.evaluate import document_run


def test_documents_take_their_best_passage_and_the_run_stops_at_depth() -> None:
    scores = np.array([[0.1, 0.9, 0.5, 0.7], [0.3, 0.2, 0.8, 0.1]], dtype=np.float32)
    doc_ids = ["d1", "d2", "d1", "d3"]
    run = document_run(scores, ["q1", "q2"], doc_ids, depth=2)
    assert run == {
        "q1": {"d2": np.float32(0.9).item(), "d3": np.float32(0.7).item()},
        "q2": {"d1": np.float32(0.8).item(), "d2": np.float32(0.2).item()},
    }


def test_a_depth_beyond_the_corpus_returns_every_document_once() -> None:
    run = document_run(np.array([[0.5, 0.5, 0.4]], dtype=np.float32), ["q"], ["a", "a", "b"], depth=10)
    assert run == {"q": {"a": 0.5, "b": np.float32(0.4).item()}}
