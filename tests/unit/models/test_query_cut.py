"""A query is cut at the end of its N-th token (special tokens not counted), with the real tokenizer."""

from __future__ import annotations

import pytest
from tokenizers import Tokenizer

from control_plane.models.artifacts import verified_artifact
from control_plane.models.manifest import load_manifest
from control_plane.models.tokenization import BatchTokenizer, cut_to_tokens


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    manifest = load_manifest()
    files = verified_artifact(manifest, manifest.model("bge-small-bio"))
    return BatchTokenizer.from_file(files.tokenizer, 512).tokenizer  # truncating, as the service loads it


def test_a_short_query_is_kept_whole(tokenizer: Tokenizer) -> None:
    assert cut_to_tokens(tokenizer, "statins and breast cancer", 5) == "statins and breast cancer"


def test_a_long_query_ends_with_its_last_kept_token(tokenizer: Tokenizer) -> None:
    # bge-small-bio's wordpieces: "stat", "##ins", "and", "breast", "cancer"
    assert cut_to_tokens(tokenizer, "statins and breast cancer", 3) == "statins and"
    assert cut_to_tokens(tokenizer, "statins and breast cancer", 4) == "statins and breast"
    assert cut_to_tokens(tokenizer, "statins and breast cancer", 1) == "stat"


def test_a_text_far_past_the_models_length_is_cut_from_its_truncated_encoding(tokenizer: Tokenizer) -> None:
    text = "aspirin bleeding risk " * 5000  # 15,000 tokens: the tokenizer stops at 512
    cut = cut_to_tokens(tokenizer, text, 128)
    assert len(tokenizer.encode(cut, add_special_tokens=False).ids) == 128
    assert text.startswith(cut)
