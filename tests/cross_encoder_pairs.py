"""Query-passage pairs and the MiniLM tokenizer shared by the cross-encoder tests (unit and export)."""

from __future__ import annotations

from pathlib import Path

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
