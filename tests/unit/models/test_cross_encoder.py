"""The cross-encoder runtime: pair tokenization, and scoring with the committed ce-minilm model.

The export-time check (a freshly exported model scores like its torch module) needs torch and runs in
the export suite: tests/export/models/test_cross_encoder_export.py (`make test-export`).
"""

from __future__ import annotations

import numpy as np
import pytest
from cross_encoder_pairs import LONG, MAX_LENGTH, PAIRS, assert_segment_ids_change_the_score, pair_tokenizer

from control_plane.models.cross_encoder import CrossEncoderScorer, encode_pairs, pair_runs
from control_plane.models.manifest import DEFAULT_MANIFEST, ManifestError, load_manifest


def test_a_pair_is_cls_query_sep_passage_sep_with_segment_ids() -> None:
    (encoding,) = encode_pairs(pair_tokenizer(), [("aspirin", "bleeding risk")])
    assert encoding.tokens == ["[CLS]", "as", "##pi", "##rin", "[SEP]", "bleeding", "risk", "[SEP]"]
    assert encoding.type_ids == [0, 0, 0, 0, 0, 1, 1, 1]


def test_a_long_passage_is_truncated_before_the_query() -> None:
    (encoding,) = encode_pairs(pair_tokenizer(), [("vitamin D asthma", LONG)])
    assert len(encoding.ids) == MAX_LENGTH and encoding.tokens[-1] == "[SEP]"
    assert encoding.tokens[:5] == ["[CLS]", "vitamin", "d", "asthma", "[SEP]"]


def test_runs_pad_each_pair_and_keep_its_segments() -> None:
    runs = pair_runs(
        pair_tokenizer(), [("aspirin", "bleeding risk"), ("a", "b")], max_batch=2, max_tokens=1000
    )
    (run,) = runs
    assert run.indices == [1, 0]  # shortest first
    assert run.attention_mask.tolist() == [[1, 1, 1, 1, 1, 0, 0, 0], [1] * 8]
    assert run.token_type_ids.tolist() == [[0, 0, 0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 0, 1, 1, 1]]


def test_a_dense_model_is_not_loaded_as_a_cross_encoder() -> None:
    with pytest.raises(ManifestError, match="'minilm' is a dense model, not rerank"):
        CrossEncoderScorer.load("minilm", manifest=load_manifest(DEFAULT_MANIFEST))


def test_score_is_per_document_in_input_order_and_independent_of_batching() -> None:
    batched = CrossEncoderScorer.load("ce-minilm", device="cpu", max_batch=32)
    single = CrossEncoderScorer.load("ce-minilm", device="cpu", max_batch=1)
    documents = [p for _, p in PAIRS]
    scores = batched.score("aspirin bleeding", documents)
    alone = single.score("aspirin bleeding", documents)
    # int8 with dynamic activation scales (one scale per batch tensor): the batch a pair is scored in
    # moves its logit by up to ~3% here, but not the order
    assert scores == pytest.approx(alone, rel=0.03)
    assert np.argsort(scores).tolist() == np.argsort(alone).tolist()
    assert scores == pytest.approx(batched.score_pairs([("aspirin bleeding", d) for d in documents]).tolist())
    assert scores[0] > scores[1]  # the bleeding passage above the statin one
    assert batched.score("aspirin bleeding", []) == []


def test_segment_ids_reach_the_graph_and_change_the_score() -> None:
    assert_segment_ids_change_the_score(CrossEncoderScorer.load("ce-minilm", device="cpu"))
