"""An encoding seed: the dense and sparse encodings of a known corpus (the demo corpus) shipped with the
repository, so a first ``make run`` reads them instead of running both models over every chunk.

A seed serves an encoding only when both keys match: the model's (the sha256 pin of its ONNX file and
its model key, which digests every verified file, the maximum length and the encoder's options, as the
encoding cache keys rows) and the chunk text's (its sha256). A text the seed does not hold, or a model
other than the one that made it, is encoded as if there were no seed: the seed is never served stale.
A file that cannot be read, or whose arrays differ from the digest its header records, is reported (a
warning naming the file and why) and ignored; so is a seed made by other models, per role.

The file is an ``.npz`` archive (numpy's zip of arrays, each member CRC-checked, read with pickles
refused):

- ``header``: UTF-8 JSON: ``format``, ``chunks``, per role (``dense``, ``sparse``) the model's ``name``,
  ``onnx_sha256`` and ``key``, how the corpus was chunked (``made``), and ``arrays_sha256``, the digest
  of every array below (name, dtype, shape and bytes, in order);
- ``texts``: the sha256 of each chunk text, ``(n, 32)`` bytes;
- ``dense``: ``(n, dimension)`` float32, exactly the model's output;
- ``sparse_offsets`` ``(n + 1,)``, ``sparse_terms`` (indices into ``sparse_vocabulary``, a UTF-8 JSON
  list of the word pieces used) and ``sparse_weights`` (float32, what the model gave, heaviest first as
  the encoder orders them).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from control_plane.errors import BiohybridError
from control_plane.ingestion.encode import DenseModel, SparseModel
from control_plane.ingestion.encoding_cache import EncodingCache, text_key
from control_plane.models.digest import model_digest
from control_plane.models.loading import LoadedModel

log = logging.getLogger(__name__)

FORMAT = 1
ROLES = ("dense", "sparse")
_ARRAYS = ("texts", "dense", "sparse_offsets", "sparse_terms", "sparse_weights", "sparse_vocabulary")
# What reading a damaged or foreign file can raise (numpy's zip reader, zlib, JSON, the checks below).
_UNREADABLE = (
    OSError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
    struct.error,
)
T = TypeVar("T")
# numpy types savez's keywords as its own options (allow_pickle); every keyword here is an array.
_savez: Callable[..., None] = np.savez_compressed


class SeedError(BiohybridError):
    """A seed file that cannot be used as a whole (unreadable, of another format, its digest differs):
    the loader reports it as a warning and ignores the file, never raising it to an ingest."""


@dataclass(frozen=True)
class ModelIdentity:
    """What a seed's encodings of one role were made by: the model's name, its ONNX file's sha256 (the
    manifest's pin) and its model key (every verified file's sha256, maximum length, encoder options)."""

    name: str
    onnx_sha256: str
    key: str

    @classmethod
    def of(cls, model: LoadedModel, **options: object) -> ModelIdentity:
        artifact = model.spec.artifacts[model.files.variant]
        return cls(model.spec.name, artifact.files["model.onnx"].sha256, model_digest(model, **options))

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "onnx_sha256": self.onnx_sha256, "key": self.key}


@dataclass(frozen=True)
class EncodingSeed:
    """A seed's encodings by text digest, for the roles whose models match the configured ones."""

    path: Path
    models: Mapping[str, ModelIdentity]
    made: Mapping[str, Any]
    rows: Mapping[str, int]
    dense: npt.NDArray[np.float32]
    sparse_offsets: npt.NDArray[np.int64]
    sparse_terms: npt.NDArray[np.uint32]
    sparse_weights: npt.NDArray[np.float32]
    vocabulary: Sequence[str]
    roles: frozenset[str] = frozenset(ROLES)

    def __len__(self) -> int:
        return len(self.rows)

    def for_roles(self, roles: frozenset[str]) -> EncodingSeed:
        return EncodingSeed(
            self.path,
            self.models,
            self.made,
            self.rows,
            self.dense,
            self.sparse_offsets,
            self.sparse_terms,
            self.sparse_weights,
            self.vocabulary,
            roles,
        )

    def dense_row(self, key: str) -> npt.NDArray[np.float32] | None:
        row = self.rows.get(key) if "dense" in self.roles else None
        return None if row is None else self.dense[row].copy()

    def sparse_map(self, key: str) -> dict[str, float] | None:
        row = self.rows.get(key) if "sparse" in self.roles else None
        if row is None:
            return None
        start, end = int(self.sparse_offsets[row]), int(self.sparse_offsets[row + 1])
        terms, weights = self.sparse_terms[start:end], self.sparse_weights[start:end]
        return {self.vocabulary[int(t)]: float(w) for t, w in zip(terms, weights, strict=True)}


def _arrays_digest(arrays: Mapping[str, npt.NDArray[Any]]) -> str:
    digest = hashlib.sha256()
    for name in _ARRAYS:
        array = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def _json_bytes(value: object) -> npt.NDArray[np.uint8]:
    return np.frombuffer(
        json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8"), dtype=np.uint8
    )


def write_seed(
    path: Path,
    models: Mapping[str, ModelIdentity],
    texts: Sequence[str],
    dense: npt.NDArray[np.float32],
    sparse: Sequence[Mapping[str, float]],
    made: Mapping[str, Any] | None = None,
) -> int:
    """Write the encodings of ``texts`` (one dense row and one term map each, as the models gave them)
    to ``path``, through a temporary file renamed into place; returns the file's size in bytes."""
    if set(models) != set(ROLES):
        raise ValueError(f"a seed needs the models of {', '.join(ROLES)}, got {', '.join(sorted(models))}")
    if not len(texts) == len(dense) == len(sparse):
        raise ValueError(f"{len(texts)} texts, {len(dense)} dense rows, {len(sparse)} term maps: one each")
    vocabulary = sorted({term for terms in sparse for term in terms})
    position = {term: i for i, term in enumerate(vocabulary)}
    offsets = np.zeros(len(sparse) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(terms) for terms in sparse])
    arrays: dict[str, npt.NDArray[Any]] = {
        "texts": np.array(
            [list(hashlib.sha256(t.encode("utf-8")).digest()) for t in texts], dtype=np.uint8
        ).reshape(len(texts), 32),
        "dense": np.asarray(dense, dtype=np.float32).reshape(len(texts), -1),
        "sparse_offsets": offsets,
        "sparse_terms": np.array([position[t] for terms in sparse for t in terms], dtype=np.uint32),
        "sparse_weights": np.array([w for terms in sparse for w in terms.values()], dtype=np.float32),
        "sparse_vocabulary": _json_bytes(vocabulary),
    }
    header = {
        "format": FORMAT,
        "chunks": len(texts),
        "models": {role: models[role].to_dict() for role in ROLES},
        "made": dict(made or {}),
        "arrays_sha256": _arrays_digest(arrays),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as out:
            _savez(out, header=_json_bytes(header), **arrays)
        Path(temporary).chmod(0o644)  # mkstemp's file is the owner's alone; a seed is for every reader
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size


def read_seed(path: Path) -> EncodingSeed:
    """The seed in ``path`` with every array checked against its header's digest; ``SeedError`` says why
    a file cannot be used (missing, not an archive, damaged, another format, inconsistent)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SeedError(f"cannot read it ({exc.strerror or exc})") from None
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            header = json.loads(archive["header"].tobytes().decode("utf-8"))
            arrays = {name: archive[name] for name in _ARRAYS}
    except _UNREADABLE as exc:
        raise SeedError(f"not a readable seed archive ({type(exc).__name__}: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        found = header.get("format") if isinstance(header, dict) else None
        raise SeedError(f"format {found!r}, this version reads format {FORMAT}")
    try:
        if _arrays_digest(arrays) != header["arrays_sha256"]:
            raise SeedError("its arrays differ from the sha256 its header records (a damaged or edited file)")
        models = {role: ModelIdentity(**header["models"][role]) for role in ROLES}
        keys = [bytes(row).hex() for row in arrays["texts"]]
        offsets = arrays["sparse_offsets"].astype(np.int64)
        vocabulary = json.loads(arrays["sparse_vocabulary"].tobytes().decode("utf-8"))
        terms = arrays["sparse_terms"]
        consistent = (
            arrays["texts"].ndim == 2
            and arrays["texts"].shape[1] == 32
            and arrays["dense"].ndim == 2
            and len(arrays["dense"]) == len(keys) == header["chunks"]
            and offsets.shape == (len(keys) + 1,)
            and int(offsets[0]) == 0
            and bool(np.all(np.diff(offsets) >= 0))
            and int(offsets[-1]) == len(terms) == len(arrays["sparse_weights"])
            and isinstance(vocabulary, list)
            and (len(terms) == 0 or int(terms.max()) < len(vocabulary))
        )
    except _UNREADABLE as exc:
        raise SeedError(f"an inconsistent header or arrays ({type(exc).__name__}: {exc})") from None
    if not consistent:
        raise SeedError("its arrays do not fit together (rows, offsets or term indices)")
    return EncodingSeed(
        path=path,
        models=models,
        made=header.get("made", {}),
        rows={key: i for i, key in enumerate(keys)},
        dense=arrays["dense"].astype(np.float32, copy=False),
        sparse_offsets=offsets,
        sparse_terms=terms.astype(np.uint32, copy=False),
        sparse_weights=arrays["sparse_weights"].astype(np.float32, copy=False),
        vocabulary=vocabulary,
    )


def load_seed(path: Path, expected: Mapping[str, ModelIdentity]) -> EncodingSeed | None:
    """The seed in ``path``, serving only the roles whose model it was made by is ``expected[role]``
    (name, ONNX sha256 and model key all equal); None, with a warning naming the file and the reason,
    when it cannot be read or serves no role. Every role it does not serve is named in a warning."""
    try:
        seed = read_seed(path)
    except SeedError as exc:
        log.warning(
            "encoding seed ignored: every chunk is encoded by the models",
            extra={"path": str(path), "reason": str(exc)},
        )
        return None
    roles: set[str] = set()
    for role, wanted in expected.items():
        made_by = seed.models.get(role)
        if made_by == wanted:
            roles.add(role)
            continue
        reason = (
            f"made by {made_by.name} (model.onnx sha256 {made_by.onnx_sha256[:12]}), the configured "
            f"model is {wanted.name} ({wanted.onnx_sha256[:12]})"
            if made_by is not None and made_by.onnx_sha256 != wanted.onnx_sha256
            else "made by the same model file with another tokenizer, maximum length or options"
            if made_by is not None
            else "it holds no encodings of this role"
        )
        log.warning(
            f"encoding seed not used for {role} encodings: its chunks are encoded by the model",
            extra={"path": str(path), "role": role, "reason": reason, "regenerate": "make demo-seed"},
        )
    if not roles:
        return None
    log.info(
        "encoding seed loaded",
        extra={
            "path": str(path),
            "chunks": len(seed),
            **{
                role: f"{seed.models[role].name} {seed.models[role].onnx_sha256[:12]}"
                for role in sorted(roles)
            },
        },
    )
    return seed.for_roles(frozenset(roles))


@dataclass
class EncodingTally:
    """Where an ingest's encodings came from (a dense and a sparse one per chunk text encoded): the seed,
    the encoding cache, or the models. ``requested`` and ``seeded`` are counted by the seed's layer (with
    or without a seed), ``cached`` is the cache's hits below it; the rest was computed."""

    seed: Path | None = None
    requested: int = 0
    seeded: int = 0
    cache: EncodingCache | None = field(default=None, repr=False)

    @property
    def cached(self) -> int:
        return self.cache.hits if self.cache is not None else 0

    @property
    def computed(self) -> int:
        return self.requested - self.seeded - self.cached

    def describe(self) -> str:
        source = f"the seed {self.seed}" if self.seed is not None else "the seed (none loaded)"
        return (
            f"encodings (a dense and a sparse one per chunk encoded): {self.seeded} from {source}, "
            f"{self.cached} from the encoding cache, {self.computed} computed by the models"
        )


class _Seeded(Generic[T]):
    """Serves each text's encoding from the seed when it holds it, encodes the rest in one call."""

    def __init__(
        self,
        seed: EncodingSeed | None,
        tally: EncodingTally,
        encode: Callable[[Sequence[str]], Sequence[T]],
        lookup: Callable[[EncodingSeed, str], T | None],
    ) -> None:
        self.seed, self.tally = seed, tally
        self._encode, self._lookup_one = encode, lookup

    def _lookup(self, texts: Sequence[str]) -> list[T]:
        seed = self.seed
        found: list[T | None] = (
            [self._lookup_one(seed, text_key(t)) for t in texts] if seed is not None else [None] * len(texts)
        )
        missing = [i for i, value in enumerate(found) if value is None]
        self.tally.requested += len(texts)
        self.tally.seeded += len(texts) - len(missing)
        if missing:
            for i, value in zip(missing, self._encode([texts[i] for i in missing]), strict=True):
                found[i] = value
        return [value for value in found if value is not None]


class SeededDenseModel(_Seeded[npt.NDArray[np.float32]]):
    """A dense model whose rows come from the seed for the texts it holds (made by this model)."""

    def __init__(self, model: DenseModel, seed: EncodingSeed | None, tally: EncodingTally) -> None:
        self.model = model
        super().__init__(seed, tally, lambda texts: list(model.encode(texts)), EncodingSeed.dense_row)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if not texts:
            return self.model.encode(texts)
        return np.stack(self._lookup(texts)).astype(np.float32, copy=False)


class SeededSparseModel(_Seeded[dict[str, float]]):
    """A sparse model whose term maps come from the seed for the texts it holds (made by this model)."""

    def __init__(self, model: SparseModel, seed: EncodingSeed | None, tally: EncodingTally) -> None:
        super().__init__(seed, tally, model.encode, EncodingSeed.sparse_map)

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        return self._lookup(texts)


def seeded_models(
    dense: DenseModel,
    sparse: SparseModel,
    path: Path | None,
    expected: Mapping[str, ModelIdentity],
    tally: EncodingTally,
) -> tuple[SeededDenseModel, SeededSparseModel]:
    """``dense`` and ``sparse`` behind the seed in ``path`` (None: no seed; each text counted as not
    seeded), each serving only what its own model made."""
    seed = load_seed(path, expected) if path is not None else None
    tally.seed = seed.path if seed is not None else None
    return SeededDenseModel(dense, seed, tally), SeededSparseModel(sparse, seed, tally)
