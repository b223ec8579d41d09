"""Encodings cached on disk by model digest + text digest, so re-ingesting unchanged text (another index,
a test session, a bigger benchmark step) never runs a model twice.

One SQLite file per cache folder; a row is (model key, sha256 of the text) -> encoded bytes. The model
key digests everything that changes the output (ONNX and tokenizer sha256 from the manifest, maximum
length, and the sparse cut), so a rebuilt or reconfigured model never reads another model's vectors.
SQLite gives atomic writes and safe concurrent readers (two ingests, two test sessions) for free.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import struct
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from control_plane.ingestion.encode import DenseModel, SparseModel
from control_plane.models.digest import model_digest
from control_plane.models.loading import LoadedModel

FILE_NAME = "encodings.sqlite3"
T = TypeVar("T")


def model_key(model: LoadedModel, **options: object) -> str:
    """A digest of what determines a model's outputs: its verified files and the encoder's options."""
    return model_digest(model, **options)


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EncodingCache:
    """(model key, text digest) -> bytes, in ``folder/encodings.sqlite3``."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILE_NAME
        self._db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS encodings "
            "(model TEXT NOT NULL, text TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (model, text))"
        )
        self._db.commit()
        self.hits = 0
        self.misses = 0

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):  # stay under SQLite's bound-parameter limit
            part = keys[start : start + 500]
            marks = ",".join("?" * len(part))
            rows = self._db.execute(
                f"SELECT text, value FROM encodings WHERE model = ? AND text IN ({marks})",
                (model, *part),
            )
            found.update(rows)
        return found

    def put_many(self, model: str, items: Iterable[tuple[str, bytes]]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO encodings (model, text, value) VALUES (?, ?, ?)",
                ((model, key, value) for key, value in items),
            )

    def close(self) -> None:
        self._db.close()


class _Cached(Generic[T]):
    """Looks each text up, encodes only the misses (in one call), stores them, returns all in order."""

    def __init__(
        self,
        cache: EncodingCache,
        key: str,
        encode: Callable[[Sequence[str]], Sequence[T]],
        dump: Callable[[T], bytes],
        load: Callable[[bytes], T],
    ) -> None:
        self.cache, self.key = cache, key
        self._encode, self._dump, self._load = encode, dump, load

    def _lookup(self, texts: Sequence[str]) -> list[T]:
        keys = [text_key(t) for t in texts]
        found = self.cache.get_many(self.key, list(dict.fromkeys(keys)))
        missing = [i for i, k in enumerate(keys) if k not in found]
        self.cache.hits += len(texts) - len(missing)
        self.cache.misses += len(missing)
        if missing:
            unique = list({keys[i]: i for i in reversed(missing)}.values())  # first occurrence of each
            unique.sort()
            encoded = self._encode([texts[i] for i in unique])
            fresh = {keys[i]: self._dump(value) for i, value in zip(unique, encoded, strict=True)}
            self.cache.put_many(self.key, fresh.items())
            found.update(fresh)
        return [self._load(found[k]) for k in keys]


class CachedDenseModel(_Cached[npt.NDArray[np.float32]]):
    """A dense model whose rows come from the cache when the same model encoded the same text before."""

    def __init__(self, model: DenseModel, cache: EncodingCache, key: str) -> None:
        self.model = model
        super().__init__(
            cache,
            key,
            lambda texts: list(model.encode(texts)),
            lambda row: np.asarray(row, dtype="<f4").tobytes(),
            lambda raw: np.frombuffer(raw, dtype="<f4"),
        )

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return self.model.encode(texts)
        return np.stack(self._lookup(texts)).astype(np.float32)


class CachedSparseModel(_Cached[dict[str, float]]):
    """A sparse model whose term maps come from the cache (weights packed as doubles, term order kept,
    so a cached map equals the freshly encoded one exactly)."""

    def __init__(self, model: SparseModel, cache: EncodingCache, key: str) -> None:
        super().__init__(cache, key, model.encode, _dump_terms, _load_terms)

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return self._lookup(texts)


def _dump_terms(terms: dict[str, float]) -> bytes:
    tokens = json.dumps(list(terms), ensure_ascii=False).encode("utf-8")
    return struct.pack("<I", len(tokens)) + tokens + struct.pack(f"<{len(terms)}d", *terms.values())


def _load_terms(raw: bytes) -> dict[str, float]:
    (length,) = struct.unpack_from("<I", raw)
    tokens: list[str] = json.loads(raw[4 : 4 + length].decode("utf-8"))
    weights = struct.unpack_from(f"<{len(tokens)}d", raw, 4 + length)
    return dict(zip(tokens, weights, strict=True))


def cached_models(
    dense: DenseModel, dense_key: str, sparse: SparseModel, sparse_key: str, folder: Path
) -> tuple[CachedDenseModel, CachedSparseModel, EncodingCache]:
    cache = EncodingCache(folder)
    return CachedDenseModel(dense, cache, dense_key), CachedSparseModel(sparse, cache, sparse_key), cache
