"""The text part of an encoding-cache key: the query as the model sees it, so two texts share an entry
exactly when the model cannot tell them apart.

The normalisation is the model's own: the ``normalizer`` of its tokenizer.json (the inference service
reports it, with the pre-tokenizer, on GET /v1/models), run by the same ``tokenizers`` library the service
tokenizes with; then, where the normalizer maps every whitespace character to a space and the
pre-tokenizer splits on whitespace, runs of spaces are collapsed and the ends trimmed. The project's
models are BERT-uncased (BertNormalizer: control characters dropped, whitespace mapped to a space,
accents stripped, lowercased), so "Warfarin  Bleeding" and "warfarin bleeding" share an entry.

NFKC is deliberately NOT applied: BERT's normalizer does not do it, so NFKC would merge texts the model
encodes differently ("ﬁbrosis" vs "fibrosis", "x²" vs "x2", full-width letters). Nor is Python's
``str.lower``: it turns a word-final capital sigma into "ς" where the tokenizer gives "σ". A model whose
normalizer is absent or unreadable is keyed by its exact text (which never merges anything).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from tokenizers import Tokenizer

Normaliser = Callable[[str], str]

# Normalizers that map every whitespace character to a plain space, with the flag that turns it on.
_SPACE_MAPPING = {"BertNormalizer": "clean_text"}
# Pre-tokenizers that split on whitespace and drop it (so how much of it there was cannot matter).
_WHITESPACE_SPLITTING = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})


def exact(text: str) -> str:
    return text


def query_normaliser(tokenizer: Mapping[str, Any] | None) -> Normaliser:
    """The key normaliser of a model whose tokenizer.json has ``tokenizer["normalizer"]`` and
    ``tokenizer["pre_tokenizer"]``."""
    config = (tokenizer or {}).get("normalizer")
    if not isinstance(config, Mapping):
        return exact
    try:
        normalizer = _tokenizer_with(config).normalizer
    except Exception:  # a config this tokenizers version cannot read: key by the exact text
        return exact
    if normalizer is None:
        return exact
    flag = _SPACE_MAPPING.get(str(config.get("type")))
    pre_tokenizer = (tokenizer or {}).get("pre_tokenizer")
    splits = isinstance(pre_tokenizer, Mapping) and pre_tokenizer.get("type") in _WHITESPACE_SPLITTING
    collapse = flag is not None and bool(config.get(flag, False)) and splits

    def normalise(text: str) -> str:
        normalised: str = normalizer.normalize_str(text)
        return " ".join(part for part in normalised.split(" ") if part) if collapse else normalised

    return normalise


def _tokenizer_with(config: Mapping[str, Any]) -> Tokenizer:
    """A tokenizer holding only ``config`` as its normalizer (the library reads a normalizer only as part
    of a tokenizer; the one-word model is never used)."""
    document: dict[str, Any] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": dict(config),
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0}, "unk_token": "[UNK]"},
    }
    return Tokenizer.from_str(json.dumps(document))
