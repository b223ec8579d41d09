"""Token counting for chunk budgets.

Budgets must be measured with the tokenizer of the model that will embed the chunks, so the chunker takes
a :class:`TokenCounter` instead of guessing from characters. Counts exclude special tokens
(``[CLS]``/``[SEP]``): leave room for them when choosing a budget.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer

from control_plane.locations import REPOSITORY_ROOT

TOKENIZER_JSON_ENV_VAR = "BIOHYBRID_TOKENIZER_JSON"
_COMMITTED_MINILM_TOKENIZER = REPOSITORY_ROOT / "model_artifacts" / "onnx" / "minilm" / "tokenizer.json"


@dataclass(frozen=True)
class Segment:
    """The smallest span it is safe to cut between: a word (or punctuation mark) and its token count.

    Cutting text only at segment boundaries keeps the tokenisation of each piece identical to its
    tokenisation inside the whole, so budgets computed from segment counts hold for the cut pieces.
    """

    start: int
    end: int
    tokens: int


class TokenCounter(Protocol):
    """Counts model tokens and exposes cut-safe segments with their token counts."""

    def count(self, text: str) -> int:
        """Number of tokens ``text`` encodes to, special tokens excluded."""
        ...

    def segments(self, text: str) -> list[Segment]:
        """Cut-safe segments covering every token of ``text``, in order, offsets relative to ``text``."""
        ...


class HuggingFaceTokenCounter:
    """A :class:`TokenCounter` backed by a Hugging Face ``tokenizer.json`` (padding and truncation off)."""

    def __init__(self, tokenizer: Tokenizer) -> None:
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer

    @classmethod
    def from_file(cls, path: Path | str) -> HuggingFaceTokenCounter:
        return cls(Tokenizer.from_file(str(path)))

    def count(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def segments(self, text: str) -> list[Segment]:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        segments: list[Segment] = []
        previous_word: int | None = None
        for (start, end), word in zip(encoding.offsets, encoding.word_ids, strict=True):
            if segments and word is not None and word == previous_word:
                last = segments[-1]
                segments[-1] = Segment(last.start, max(last.end, end), last.tokens + 1)
            else:
                segments.append(Segment(start, end, 1))
            previous_word = word
        return segments


class RegexTokenCounter:
    """A dependency-free approximation (one token per word or punctuation mark) for quick experiments."""

    _TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)

    def count(self, text: str) -> int:
        return sum(1 for _ in self._TOKEN.finditer(text))

    def segments(self, text: str) -> list[Segment]:
        return [Segment(match.start(), match.end(), 1) for match in self._TOKEN.finditer(text)]


def minilm_tokenizer_path() -> Path:
    """The all-MiniLM-L6-v2 ``tokenizer.json``: ``$BIOHYBRID_TOKENIZER_JSON``, else the dense model's
    committed artifact (chunk budgets are measured with the tokenizer that will encode the chunks)."""
    configured = os.environ.get(TOKENIZER_JSON_ENV_VAR)
    path = Path(configured) if configured else _COMMITTED_MINILM_TOKENIZER
    if not path.is_file():
        raise RuntimeError(f"no tokenizer.json at {path}: set {TOKENIZER_JSON_ENV_VAR} to one")
    return path


@lru_cache(maxsize=1)
def minilm_token_counter() -> HuggingFaceTokenCounter:
    """The shared MiniLM counter (loaded once; the tokenizer is immutable after set-up)."""
    return HuggingFaceTokenCounter.from_file(minilm_tokenizer_path())
