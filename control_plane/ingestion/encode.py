"""The fast encoding path: vectors computed in Python in batches (GPU when present), then written.

The other path leaves ``embedding`` and ``sparse_terms`` out and lets the ``chunk-embed`` ingest
pipeline call the same models inside OpenSearch; both give the same vectors (tested).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from control_plane.ingestion.chunking import Chunk
from control_plane.query.components import token_id_weights


class DenseModel(Protocol):
    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


class SparseModel(Protocol):
    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]: ...


def chunk_document(chunk: Chunk) -> dict[str, Any]:
    """The index document of a chunk, without model outputs."""
    return chunk.to_dict()


class ModelChunkEncoder:
    """Adds ``embedding`` and ``sparse_terms`` to chunk documents, ``batch_size`` texts per model call.
    ``sparse_token_ids`` (a SEISMIC index, ``index.sparse.method: seismic``): the SPLADE terms are written
    keyed by their vocabulary ids, which a ``sparse_vector`` field requires, instead of word pieces."""

    def __init__(
        self,
        dense: DenseModel,
        sparse: SparseModel,
        batch_size: int = 32,
        sparse_token_ids: Mapping[str, int] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.dense = dense
        self.sparse = sparse
        self.batch_size = batch_size
        self.sparse_token_ids = sparse_token_ids

    def __call__(self, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
        outputs = self.vectors([c.text for c in chunks])
        return [{**chunk_document(c), **fields} for c, fields in zip(chunks, outputs, strict=True)]

    def vectors(self, texts: Sequence[str]) -> list[dict[str, Any]]:
        """``{"embedding": ..., "sparse_terms": ...}`` per text, in order: the model outputs of a chunk
        document (what a re-encode replaces, control_plane/ingestion/reencode.py)."""
        # Encode in length order so each model batch pads to similar lengths, then restore the order.
        by_length = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        outputs: list[dict[str, Any]] = [{} for _ in texts]
        for start in range(0, len(by_length), self.batch_size):
            positions = by_length[start : start + self.batch_size]
            batch = [texts[i] for i in positions]
            vectors = self.dense.encode(batch)
            terms = self.sparse.encode(batch)
            for i, vector, weights in zip(positions, vectors, terms, strict=True):
                if self.sparse_token_ids is not None:
                    weights = token_id_weights(weights, self.sparse_token_ids)
                outputs[i] = {"embedding": [float(x) for x in vector], "sparse_terms": weights}
        return outputs


class PipelineChunkEncoder:
    """No Python encoding: documents go to the ``chunk-embed`` ingest pipeline, which encodes them."""

    def __call__(self, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
        return [chunk_document(c) for c in chunks]
