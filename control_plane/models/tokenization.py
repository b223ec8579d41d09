"""Tokenize with the artifact's tokenizer.json and cut the work into padded runs.

Texts are tokenized once without padding, sorted by length and grouped so each run pads to its own
longest member: a long abstract does not make 31 short queries pay for 256 positions, and a token budget
per run bounds the memory of models whose output grows with batch × length (SPLADE's vocabulary logits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Encoding, Tokenizer

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Run:
    """One padded model call: the indices of the texts it holds and the feeds for the session."""

    indices: list[int]
    input_ids: IntArray
    attention_mask: IntArray
    token_type_ids: IntArray

    def feeds(self, input_names: Sequence[str]) -> dict[str, IntArray]:
        """Only the inputs the graph declares (MPNet has no token_type_ids)."""
        available = {
            "input_ids": self.input_ids,
            "attention_mask": self.attention_mask,
            "token_type_ids": self.token_type_ids,
        }
        return {name: available[name] for name in input_names}


def plan_runs(lengths: Sequence[int], max_batch: int, max_tokens: int) -> list[list[int]]:
    """Group indices, shortest first, so each run has ≤ max_batch texts and ≤ max_tokens padded positions.

    A text longer than ``max_tokens`` still gets a run of its own: the budget bounds memory, it never
    refuses work.
    """
    if max_batch < 1 or max_tokens < 1:
        raise ValueError("max_batch and max_tokens must be positive")
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    runs: list[list[int]] = []
    current: list[int] = []
    for index in order:
        padded = lengths[index] * (len(current) + 1)  # sorted ascending: this text is the longest so far
        if current and (len(current) >= max_batch or padded > max_tokens):
            runs.append(current)
            current = []
        current.append(index)
    if current:
        runs.append(current)
    return runs


class BatchTokenizer:
    """A Hugging Face tokenizer truncating at the model's max length, padding per run."""

    def __init__(self, tokenizer: Tokenizer, max_length: int) -> None:
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length)
        self._tokenizer = tokenizer
        self.max_length = max_length
        pads = (tokenizer.token_to_id(token) for token in ("[PAD]", "<pad>"))
        self.pad_id = next((pad for pad in pads if pad is not None), 0)

    @classmethod
    def from_file(cls, path: Path, max_length: int) -> BatchTokenizer:
        return cls(Tokenizer.from_file(str(path)), max_length)

    @property
    def tokenizer(self) -> Tokenizer:
        return self._tokenizer

    def encode(self, texts: Sequence[str]) -> list[Encoding]:
        return self._tokenizer.encode_batch(list(texts))

    def runs(self, texts: Sequence[str], max_batch: int, max_tokens: int) -> list[Run]:
        encodings = self.encode(texts)
        plan = plan_runs([len(e.ids) for e in encodings], max_batch, max_tokens)
        return [pad_encodings(indices, [encodings[i] for i in indices], self.pad_id) for indices in plan]


def pad_encodings(indices: list[int], encodings: Sequence[Encoding], pad_id: int) -> Run:
    """One padded run: ids, attention mask and token type ids, right-padded to the longest encoding."""
    width = max(len(e.ids) for e in encodings)
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    types = np.zeros((len(encodings), width), dtype=np.int64)
    for row, encoding in enumerate(encodings):
        n = len(encoding.ids)
        ids[row, :n] = encoding.ids
        mask[row, :n] = encoding.attention_mask
        types[row, :n] = encoding.type_ids
    return Run(indices=indices, input_ids=ids, attention_mask=mask, token_type_ids=types)


def cut_to_tokens(tokenizer: Tokenizer, text: str, max_tokens: int) -> str:
    """``text`` up to the end of its ``max_tokens``-th token (special tokens not counted): what a model
    reading at most that many tokens sees, so a long text costs no more than a short one. The
    tokenizer's own truncation bounds the work of finding the cut."""
    encoding = tokenizer.encode(text, add_special_tokens=False)
    if len(encoding.ids) <= max_tokens:
        return text
    return text[: encoding.offsets[max_tokens - 1][1]]
