"""Query-passage pairs and the MiniLM tokenizer shared by the cross-encoder tests (unit and export)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from control_plane.models.cross_encoder import CrossEncoderScorer, pair_runs
from control_plane.models.tokenization import BatchTokenizer

REPO_ROOT = Path(__file__).resolve().parents[1]
TOKENIZER = REPO_ROOT / "model_artifacts" / "onnx" / "minilm" / "tokenizer.json"
MAX_LENGTH = 48
LONG = "Low-dose aspirin reduces the risk of myocardial infarction but raises bleeding risk. " * 12
PAIRS = [
    ("aspirin bleeding", "Aspirin raises the risk of gastrointestinal bleeding."),
    ("aspirin bleeding", "Statins lower LDL cholesterol."),
    ("vitamin D asthma", LONG),
    ("BRCA1 ovarian cancer screening", "BRCA1 carriers are offered ovarian cancer screening."),
]


def pair_tokenizer(max_length: int = MAX_LENGTH) -> BatchTokenizer:
    return BatchTokenizer.from_file(TOKENIZER, max_length)


def assert_segment_ids_change_the_score(scorer: CrossEncoderScorer) -> None:
    """The graph takes token_type_ids, and zeroing them (one segment) changes a pair's score."""
    session = scorer.model.session
    assert session.input_names == ["input_ids", "attention_mask", "token_type_ids"]
    (run,) = pair_runs(scorer.model.tokenizer, PAIRS[:1], max_batch=1, max_tokens=1000)
    feeds = run.feeds(session.input_names)
    one_segment = session.run({**feeds, "token_type_ids": np.zeros_like(run.token_type_ids)})
    assert abs(float(one_segment[0]) - float(scorer.score_pairs(PAIRS[:1])[0])) > 1e-4
