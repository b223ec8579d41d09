"""The cross-encoders trained here (ce-minilm from MiniLM; ce-bge-small and ce-bge-small-distil from
bge-small, the second with the fused ensemble as teacher; all int8) through the runtime scorer: each matches
the PyTorch scores recorded at its export, and ranks relevant NFCorpus *dev* passages above non-relevant
ones (dev is held out from training: negatives and positives came from the train splits only)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest
from integration.int8_kernels import avx2_only_u8s8

from control_plane.models import CrossEncoderScorer
from control_plane.testsets.catalog import load_test_set
from model_artifacts.reranker.bm25 import Bm25
from model_artifacts.reranker.ranking import pair_order_agreement, pairwise_auc

REFERENCES = Path(__file__).resolve().parents[3] / "model_artifacts" / "reference"
DEV_QUERIES = 40
DEPTH = 20
MODELS = ("ce-minilm", "ce-bge-small", "ce-bge-small-distil")
INT8_MAX_ABS_DIFF = {"ce-minilm": 0.75, "ce-bge-small": 0.5, "ce-bge-small-distil": 0.75}
"""int8 (dynamic quantisation) moves logits, not order: on the fixed pairs at export, 0.43 (ce-minilm), 0.29
(ce-bge-small) and 0.48 (ce-bge-small-distil) from PyTorch's fp32 logits."""


@pytest.fixture(scope="module", params=MODELS)
def cross_encoder(request: pytest.FixtureRequest) -> CrossEncoderScorer:
    return CrossEncoderScorer.load(request.param, device="cpu")


def _reference_and_scores(cross_encoder: CrossEncoderScorer) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's fp32 logits recorded at export for fixed pairs, and the runtime scorer's for the same."""
    data = np.load(REFERENCES / f"{cross_encoder.name}.npz")
    pairs = list(zip((str(q) for q in data["queries"]), (str(p) for p in data["passages"]), strict=True))
    return data["torch"], np.asarray(cross_encoder.score_pairs(pairs))


def test_the_scorer_orders_pairs_as_the_pytorch_reference_recorded_at_export(
    cross_encoder: CrossEncoderScorer,
) -> None:
    reference, scores = _reference_and_scores(cross_encoder)
    assert pair_order_agreement(reference.tolist(), scores.tolist()) >= 0.95


# A known defect on the saturating int8 kernels, not hidden (test_bge_small_bio.py has the dense one):
# strict, so it must still fail there. On the AVX2-only EPYC (2026-12-02) the largest differences were
# 0.54 (ce-minilm), 0.71 (ce-bge-small) and 0.57 (ce-bge-small-distil); the order test above held for all.
_SATURATED_BEYOND_EXPORT_BOUND = {"ce-bge-small": avx2_only_u8s8()}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=pytest.mark.xfail(
                _SATURATED_BEYOND_EXPORT_BOUND.get(name, False),
                reason="int8 u8s8 kernels saturate on AVX2 without VNNI: logits pass the export's bound",
                strict=True,
            ),
        )
        for name in MODELS
    ],
)
def test_the_scorers_logits_stay_near_the_pytorch_reference_recorded_at_export(name: str) -> None:
    reference, scores = _reference_and_scores(CrossEncoderScorer.load(name, device="cpu"))
    assert np.abs(scores - reference).max() <= INT8_MAX_ABS_DIFF[name]


def _sample(ids: list[str], count: int) -> list[str]:
    """A fixed sample, independent of file order: the smallest sha256 of each id."""
    return sorted(ids, key=lambda i: hashlib.sha256(f"ce-dev-sample:{i}".encode()).hexdigest())[:count]


def test_relevant_dev_passages_rank_above_non_relevant_ones(cross_encoder: CrossEncoderScorer) -> None:
    """Candidates are a local BM25's top 20 over the corpus (the kind of list the reranker gets); unjudged
    candidates count as non-relevant, as NFCorpus's evaluation counts them."""
    dev = load_test_set("nfcorpus/dev")
    documents = list(dev.corpus())
    texts = [f"{d.title}. {d.text}" if d.title else d.text for d in documents]
    bm25 = Bm25(texts)
    qrels = dev.qrels()
    queries = {q.query_id: q.text for q in dev.queries()}
    model_scores, bm25_scores, labels = [], [], []
    for query_id in _sample(sorted(queries), DEV_QUERIES):
        top = bm25.top(queries[query_id], DEPTH)
        model_scores.append(cross_encoder.score(queries[query_id], [texts[i] for i in top]))
        bm25_scores.append(bm25.scores(queries[query_id])[top].tolist())
        labels.append([qrels[query_id].get(documents[i].doc_id, 0) for i in top])
    auc = pairwise_auc(model_scores, labels)
    first_stage_auc = pairwise_auc(bm25_scores, labels)
    sample = f"{DEV_QUERIES} queries x {DEPTH} BM25 candidates"
    print(f"{cross_encoder.name}, dev sample, {sample}: AUC {auc:.3f} (BM25 {first_stage_auc:.3f})")
    assert auc >= 0.6, auc
    assert auc > first_stage_auc, (auc, first_stage_auc)
