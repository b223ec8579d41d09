"""``biohybrid encode-seed``: an encoding seed (encoding_seed.py) made in this process, with no OpenSearch:
the sources parsed and chunked as ``ingest`` does them, their texts encoded by the configured models in
ONNX (no encoding cache, no seed: every encoding in the file is computed afresh), then written."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from control_plane.config.settings import Settings
from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.encode import ModelChunkEncoder
from control_plane.ingestion.encoding_seed import write_seed
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import iter_documents, most_complete_forms, superseded
from control_plane.ingestion.setup import LocalModels, local_models
from control_plane.ingestion.tokens import TokenCounter
from control_plane.progress import progress_bar

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SeedBuild:
    """What ``build_seed`` wrote: how many documents and chunks, distinct texts, bytes and seconds."""

    path: Path
    documents: int
    chunks: int
    texts: int
    parse_errors: int
    bytes: int
    seconds: float

    @property
    def texts_per_s(self) -> float:
        return self.texts / self.seconds if self.seconds else 0.0


def corpus_chunks(
    sources: Sequence[str | Path],
    *,
    strategy: str,
    token_budget: int,
    overlap_pct: float,
    counter: TokenCounter | None,
    errors: list[str] | None = None,
) -> Iterator[tuple[str, list[Chunk]]]:
    """``(doc_id, chunks)`` per document of ``sources`` as ``ingest`` chunks them: parse errors left out
    (appended to ``errors``), and a record found in several files kept in its most complete form only."""
    preferred = most_complete_forms(sources)
    seen: set[str] = set()
    for item in iter_documents(sources):
        if isinstance(item, ParseError):  # ingest dead-letters it
            if errors is not None:
                errors.append(str(item))
            continue
        if superseded(item, seen, preferred):
            continue
        seen.add(item.doc_id)
        yield (
            item.doc_id,
            chunk(item, strategy, token_budget=token_budget, overlap_pct=overlap_pct, counter=counter),
        )


def distinct_texts(chunks: Iterable[Chunk]) -> list[str]:
    """Each chunk text once, in first-seen order."""
    return list(dict.fromkeys(c.text for c in chunks))


def build_seed(
    settings: Settings,
    sources: Sequence[str | Path],
    out: Path,
    *,
    strategy: str = "sentence",
    token_budget: int = 254,
    overlap_pct: float = 20.0,
    batch_chunks: int = 256,
    progress: bool = True,
    models: LocalModels | None = None,
) -> SeedBuild:
    """Parse, chunk and encode ``sources`` with the configured models, and write the seed to ``out``.
    Texts are encoded ``batch_chunks`` at a time in corpus order, each batch as ingest's encoder does it
    (length-sorted model calls of 32), so the seed holds what a fresh ingest computes."""
    started = time.monotonic()
    loaded = models or local_models(settings)
    errors: list[str] = []
    documents, all_chunks = 0, []
    for _, chunks in corpus_chunks(
        sources,
        strategy=strategy,
        token_budget=token_budget,
        overlap_pct=overlap_pct,
        counter=loaded.counter,
        errors=errors,
    ):
        documents += 1
        all_chunks.extend(chunks)
    texts = distinct_texts(all_chunks)
    encoder = ModelChunkEncoder(loaded.dense, loaded.sparse)  # word pieces, whatever the index method
    dense: list[list[float]] = []
    sparse: list[dict[str, float]] = []
    bar = progress_bar(total=len(texts), desc=f"encode-seed -> {out}", unit="chunk", disable=not progress)
    try:
        for start in range(0, len(texts), batch_chunks):
            for fields in encoder.vectors(texts[start : start + batch_chunks]):
                dense.append(fields["embedding"])
                sparse.append(fields["sparse_terms"])
            bar.update(min(batch_chunks, len(texts) - start))
    finally:
        bar.close()
    made = {
        "sources": [str(s) for s in sources],
        "strategy": strategy,
        "token_budget": token_budget,
        "overlap_pct": overlap_pct,
        "documents": documents,
        "command": "biohybrid encode-seed",
    }
    size = write_seed(out, loaded.identities, texts, np.asarray(dense, dtype=np.float32), sparse, made)
    built = SeedBuild(
        out, documents, len(all_chunks), len(texts), len(errors), size, time.monotonic() - started
    )
    log.info("encoding seed written", extra={"path": str(out), "texts": len(texts), "bytes": size})
    return built
