"""The encoding-cache key normalisation, checked against the model's own tokenizer: texts share a key
only when the tokenizer gives them the same token ids."""

import json
from functools import cache
from typing import Any

import pytest
from tokenizers import Tokenizer

from control_plane.locations import REPOSITORY_ROOT
from control_plane.search.query_cache.normalise import exact, query_normaliser

# The committed SPLADE tokenizer (BERT WordPiece, uncased); bge-small's has the same normalizer.
TOKENIZER = REPOSITORY_ROOT / "model_artifacts" / "onnx" / "splade-tiny" / "tokenizer.json"


@cache
def _sections() -> dict[str, Any]:
    document = json.loads(TOKENIZER.read_text(encoding="utf-8"))
    return {"normalizer": document["normalizer"], "pre_tokenizer": document["pre_tokenizer"]}


@cache
def _ids(text: str) -> list[int]:
    return list(Tokenizer.from_file(str(TOKENIZER)).encode(text).ids)


def test_the_bert_normalizer_lowercases_strips_accents_and_collapses_whitespace() -> None:
    normalise = query_normaliser(_sections())
    assert normalise("  Warfarin\t\tBLEEDING  Risk\n") == "warfarin bleeding risk"
    assert normalise("Café au lait") == "cafe au lait"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Warfarin  Bleeding", "warfarin bleeding"),
        ("CAFÉ", "cafe"),
        ("a\tb\nc", "a b c"),
        ("中文", "中 文"),  # CJK characters are split into words by the normalizer itself
    ],
)
def test_texts_sharing_a_key_are_encoded_alike(first: str, second: str) -> None:
    normalise = query_normaliser(_sections())
    assert normalise(first) == normalise(second)
    assert _ids(first) == _ids(second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ﬁbrosis", "fibrosis"),  # NFKC would merge these
        ("x²", "x2"),  # and these
        ("ＡＢＣ", "ABC"),  # and full-width letters
        ("ΟΔΟΣ", "οδος"),  # str.lower() would merge these (final sigma); the tokenizer gives "σ"
        ("a\x1cb", "a b"),  # a control character is dropped, not turned into a space
    ],
)
def test_texts_the_model_tells_apart_keep_apart(first: str, second: str) -> None:
    normalise = query_normaliser(_sections())
    assert _ids(first) != _ids(second)
    assert normalise(first) != normalise(second)


def test_a_model_without_a_readable_normalizer_is_keyed_by_the_exact_text() -> None:
    assert query_normaliser(None) is exact
    assert query_normaliser({"normalizer": None, "pre_tokenizer": None}) is exact
    assert query_normaliser({"normalizer": {"type": "NoSuchNormalizer"}}) is exact


def test_whitespace_is_kept_when_the_pre_tokenizer_does_not_split_on_it() -> None:
    sections = {**_sections(), "pre_tokenizer": {"type": "Metaspace", "replacement": "▁"}}
    assert query_normaliser(sections)("A  B") == "a  b"
