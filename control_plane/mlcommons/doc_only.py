"""Inference-free ("doc-only") sparse retrieval: the query side is a tokenizer plus IDF weights.

OpenSearch deploys a SPARSE_TOKENIZE model (a zip of tokenizer.json and idf.json, uploaded in chunks)
and encodes each query token as its IDF, with no call to the inference service: only the documents go
through SPLADE. The IDF comes from the indexed chunks themselves, so it matches the corpus searched.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import math
import zipfile
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from opensearchpy import OpenSearch, helpers
from tokenizers import Tokenizer

from control_plane.formulas.bm25 import bm25_idf
from control_plane.mlcommons.ml_api import (
    ModelsNotReadyError,
    deploy_model,
    find_model,
    remove_model,
    retry_recovering,
)

log = logging.getLogger(__name__)

UPLOAD_CHUNK_BYTES = 10_000_000
SPECIAL_TOKENS = frozenset({"[CLS]", "[SEP]", "[PAD]", "[MASK]", "[UNK]"})


def idf_table(
    document_frequencies: Mapping[str, int], n_documents: int, vocabulary: Iterable[str]
) -> dict[str, float]:
    """IDF for every vocabulary token (unseen tokens get the highest IDF, df = 0), rounded to 6 places."""
    return {
        token: round(bm25_idf(doc_count=n_documents, doc_freq=document_frequencies.get(token, 0)), 6)
        for token in vocabulary
        if token not in SPECIAL_TOKENS
    }


def document_frequencies(texts: Iterable[str], tokenizer: Tokenizer) -> tuple[Counter[str], int]:
    """How many texts contain each token (word pieces, as the query will be tokenized), and the count."""
    frequencies: Counter[str] = Counter()
    n_documents = 0
    for text in texts:
        frequencies.update(set(tokenizer.encode(text, add_special_tokens=False).tokens))
        n_documents += 1
    return frequencies, n_documents


def corpus_idf(client: OpenSearch, index: str, tokenizer_path: Path) -> dict[str, float]:
    """IDF over the ``text`` of every chunk in ``index``."""
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    hits = helpers.scan(client, index=index, query={"_source": ["text"]}, size=1000)
    frequencies, n_documents = document_frequencies((h["_source"].get("text", "") for h in hits), tokenizer)
    if n_documents == 0:
        raise ModelsNotReadyError(f"index {index} holds no chunks: ingest before building doc-only IDF")
    return idf_table(frequencies, n_documents, tokenizer.get_vocab())


def tokenizer_bundle(tokenizer_json: bytes, idf: Mapping[str, float]) -> bytes:
    """The SPARSE_TOKENIZE model file: a zip of tokenizer.json and idf.json (deterministic bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as bundle:
        for name, payload in (
            ("tokenizer.json", tokenizer_json),
            ("idf.json", json.dumps(idf, sort_keys=True).encode()),
        ):
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            bundle.writestr(info, payload)
    return buffer.getvalue()


def register_tokenizer_model(client: OpenSearch, name: str, bundle: bytes, timeout_s: float = 60.0) -> str:
    """Upload and deploy the bundle as ``name``; the same bytes already deployed are reused."""
    digest = hashlib.sha256(bundle).hexdigest()
    existing = find_model(client, name)
    if existing is not None and existing.get("model_content_hash_value") == digest:
        model_id = str(existing["_id"])
    else:
        meta = {
            "name": name,
            "version": "1.0.0",
            "model_format": "TORCH_SCRIPT",
            "function_name": "SPARSE_TOKENIZE",
            "description": "doc-only sparse query encoder: tokenizer + IDF of the indexed chunks",
            "model_content_hash_value": digest,
            "model_content_size_in_bytes": len(bundle),
            "total_chunks": math.ceil(len(bundle) / UPLOAD_CHUNK_BYTES),
        }
        model_id = str(
            retry_recovering(
                lambda: client.transport.perform_request(
                    "POST", "/_plugins/_ml/models/_register_meta", body=meta
                ),
                what="register_meta",
            )["model_id"]
        )
        for number, start in enumerate(range(0, len(bundle), UPLOAD_CHUNK_BYTES)):
            client.transport.perform_request(
                "POST",
                f"/_plugins/_ml/models/{model_id}/upload_chunk/{number}",
                body=bundle[start : start + UPLOAD_CHUNK_BYTES],
                headers={"content-type": "application/json"},
            )
        if existing is not None:
            remove_model(client, str(existing["_id"]))
        log.info("doc-only tokenizer registered", extra={"model": name, "model_id": model_id})
    deploy_model(client, model_id, timeout_s)
    return model_id
