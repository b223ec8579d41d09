"""An in-memory copy of what an index scores with, read from the index itself, for exact search.

Per chunk: the dense vector and SPLADE weights from ``_source`` (the values OpenSearch indexed), and
each BM25 field's terms and frequencies from ``_mtermvectors`` (produced on the fly by the field's own
analyzer chain, with the shard's docFreq and field statistics). Chunks are kept in Lucene document
order (a scroll sorted by ``_doc``), so exact search can break score ties as Lucene does. Query text is
analysed through ``_analyze`` with the field's analyzer: no analyzer is re-implemented in Python.

Pulling 6,794 NFCorpus chunks takes a minute, so snapshots are cached under ``.cache/exact/`` (npz, no
pickle), keyed by the index uuid, its document count and its highest sequence number: any write makes
a new key.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from opensearchpy import OpenSearch

from control_plane.locations import REPOSITORY_ROOT
from control_plane.query.components import BM25_FIELD_BOOSTS, DENSE_FIELD, SPARSE_FIELD

CACHE_DIR = REPOSITORY_ROOT / ".cache" / "exact"
BM25_FIELDS: tuple[str, ...] = tuple(BM25_FIELD_BOOSTS)
SCROLL_BATCH = 500
TERMVECTOR_BATCH = 100

FloatMatrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class TermMatrix:
    """Per chunk, (term id, value) pairs in CSR form: row i is ``term_ids/values[indptr[i]:indptr[i+1]]``."""

    vocabulary: tuple[str, ...]
    indptr: npt.NDArray[np.int64]
    term_ids: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, float]]) -> TermMatrix:
        ids: dict[str, int] = {}
        term_ids: list[int] = []
        values: list[float] = []
        indptr = [0]
        for row in rows:
            for term, value in row.items():
                term_ids.append(ids.setdefault(term, len(ids)))
                values.append(value)
            indptr.append(len(term_ids))
        return cls(
            vocabulary=tuple(ids),
            indptr=np.asarray(indptr, dtype=np.int64),
            term_ids=np.asarray(term_ids, dtype=np.int32),
            values=np.asarray(values, dtype=np.float32),
        )

    @property
    def rows(self) -> int:
        return len(self.indptr) - 1

    def row(self, i: int) -> dict[str, float]:
        span = slice(int(self.indptr[i]), int(self.indptr[i + 1]))
        return {
            self.vocabulary[t]: float(v) for t, v in zip(self.term_ids[span], self.values[span], strict=True)
        }


@dataclass(frozen=True)
class FieldStatistics:
    """What Lucene's BM25 reads for one field: the similarity's k1 and b, the field's docCount and
    sumTotalTermFreq, and docFreq per term (from the index, so deleted-but-unmerged documents count
    exactly as they do for Lucene)."""

    k1: float
    b: float
    doc_count: int
    sum_total_term_freq: int
    doc_freq: Mapping[str, int]

    @property
    def avgdl(self) -> float:
        """Lucene's avgdl, a float: sumTotalTermFreq / docCount (1 for an empty field)."""
        if self.doc_count == 0:
            return 1.0
        return float(np.float32(self.sum_total_term_freq / self.doc_count))


@dataclass(frozen=True)
class IndexSnapshot:
    index: str
    key: str
    chunk_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    embeddings: FloatMatrix
    sparse: TermMatrix
    terms: Mapping[str, TermMatrix]
    statistics: Mapping[str, FieldStatistics]

    def __post_init__(self) -> None:
        n = len(self.chunk_ids)
        sizes = {
            "doc_ids": len(self.doc_ids),
            "embeddings": self.embeddings.shape[0],
            "sparse": self.sparse.rows,
            **{f"terms[{f}]": m.rows for f, m in self.terms.items()},
        }
        wrong = {name: size for name, size in sizes.items() if size != n}
        if wrong:
            raise ValueError(f"snapshot of {self.index}: {n} chunk ids but row counts {wrong}")


def snapshot_key(client: OpenSearch, index: str) -> str:
    """uuid, document count and highest _seq_no: changes whenever the index is written to."""
    settings = client.indices.get_settings(index=index)
    if len(settings) != 1:
        raise ValueError(f"{index!r} names {len(settings)} indices; snapshot one concrete index")
    uuid = next(iter(settings.values()))["settings"]["index"]["uuid"]
    answer = client.search(
        index=index,
        body={"size": 1, "_source": False, "sort": [{"_seq_no": "desc"}], "seq_no_primary_term": True},
    )
    hits = answer["hits"]["hits"]
    seq_no = hits[0]["_seq_no"] if hits else -1
    return f"{uuid}-{answer['hits']['total']['value']}-{seq_no}"


def cached_snapshot(
    client: OpenSearch,
    index: str,
    fields: Sequence[str] = BM25_FIELDS,
    cache_dir: Path = CACHE_DIR,
) -> IndexSnapshot:
    """The snapshot from ``cache_dir`` when the index has not changed since, else a fresh one (saved)."""
    key = snapshot_key(client, index)
    path = cache_dir / f"{index}-{key}-{'-'.join(fields)}.npz"
    if path.is_file():
        return load_snapshot(path)
    snapshot = take_snapshot(client, index, fields, key=key)
    cache_dir.mkdir(parents=True, exist_ok=True)
    save_snapshot(snapshot, path)
    return snapshot


def take_snapshot(
    client: OpenSearch, index: str, fields: Sequence[str] = BM25_FIELDS, key: str | None = None
) -> IndexSnapshot:
    """Read every chunk of ``index``: vectors and SPLADE weights by scroll, BM25 terms by _mtermvectors."""
    key = key or snapshot_key(client, index)
    chunk_ids: list[str] = []
    doc_ids: list[str] = []
    vectors: list[list[float]] = []
    sparse_rows: list[dict[str, float]] = []
    for hit in _scroll(client, index):
        source = hit["_source"]
        if source.get(DENSE_FIELD) is None:
            raise ValueError(f"{index}/{hit['_id']} has no {DENSE_FIELD}: exact search needs every vector")
        chunk_ids.append(hit["_id"])
        doc_ids.append(str(source.get("doc_id", hit["_id"])))
        vectors.append(source[DENSE_FIELD])
        sparse_rows.append({t: float(w) for t, w in (source.get(SPARSE_FIELD) or {}).items()})
    terms, statistics = _field_terms(client, index, chunk_ids, fields)
    return IndexSnapshot(
        index=index,
        key=key,
        chunk_ids=tuple(chunk_ids),
        doc_ids=tuple(doc_ids),
        embeddings=np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1),
        sparse=TermMatrix.from_rows(sparse_rows),
        terms=terms,
        statistics=statistics,
    )


def analyze(client: OpenSearch, index: str, field: str, text: str) -> tuple[str, ...]:
    """``text`` as the field's search analyzer turns it into terms, in order (duplicates kept)."""
    answer = client.indices.analyze(index=index, body={"field": field, "text": text})
    return tuple(token["token"] for token in answer["tokens"])


def _scroll(client: OpenSearch, index: str) -> Iterator[dict[str, Any]]:
    body = {"size": SCROLL_BATCH, "sort": ["_doc"], "_source": ["doc_id", DENSE_FIELD, SPARSE_FIELD]}
    answer = client.search(index=index, body=body, scroll="5m")
    scroll_id = answer.get("_scroll_id")
    try:
        while answer["hits"]["hits"]:
            yield from answer["hits"]["hits"]
            answer = client.scroll(body={"scroll": "5m", "scroll_id": scroll_id})
            scroll_id = answer.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            client.clear_scroll(body={"scroll_id": [scroll_id]}, ignore=(404,))


def _field_terms(
    client: OpenSearch, index: str, chunk_ids: Sequence[str], fields: Sequence[str]
) -> tuple[dict[str, TermMatrix], dict[str, FieldStatistics]]:
    similarity = _similarity_parameters(client, index, fields)
    rows: dict[str, list[dict[str, float]]] = {f: [] for f in fields}
    doc_freq: dict[str, dict[str, int]] = {f: {} for f in fields}
    field_stats: dict[str, tuple[int, int]] = {f: (0, 0) for f in fields}
    parameters = {
        "fields": list(fields),
        "positions": False,
        "offsets": False,
        "payloads": False,
        "term_statistics": True,
        "field_statistics": True,
    }
    for start in range(0, len(chunk_ids), TERMVECTOR_BATCH):
        batch = list(chunk_ids[start : start + TERMVECTOR_BATCH])
        answer = client.mtermvectors(index=index, body={"ids": batch, "parameters": parameters})
        # The answer does not keep the request's order: match documents by id.
        by_id = {doc.get("_id"): doc for doc in answer["docs"] if doc.get("found", False)}
        for chunk_id in batch:
            if chunk_id not in by_id:
                raise ValueError(
                    f"_mtermvectors on {index} did not return {chunk_id}; was it deleted meanwhile?"
                )
            vectors = by_id[chunk_id].get("term_vectors") or {}
            for field in fields:
                entry = vectors.get(field)
                terms = entry["terms"] if entry else {}
                rows[field].append({t: float(s["term_freq"]) for t, s in terms.items()})
                if entry:
                    stats = entry["field_statistics"]
                    field_stats[field] = (int(stats["doc_count"]), int(stats["sum_ttf"]))
                    doc_freq[field].update({t: int(s["doc_freq"]) for t, s in terms.items()})
    matrices = {f: TermMatrix.from_rows(rows[f]) for f in fields}
    statistics = {
        f: FieldStatistics(
            k1=similarity[f][0],
            b=similarity[f][1],
            doc_count=field_stats[f][0],
            sum_total_term_freq=field_stats[f][1],
            doc_freq=doc_freq[f],
        )
        for f in fields
    }
    return matrices, statistics


def _similarity_parameters(
    client: OpenSearch, index: str, fields: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """(k1, b) per field from the mapping's similarity name and the index settings (BM25 defaults
    1.2 / 0.75 for a field without one); refuses a similarity that is not BM25."""
    mapping = next(iter(client.indices.get_mapping(index=index).values()))["mappings"]["properties"]
    settings = next(iter(client.indices.get_settings(index=index).values()))["settings"]["index"]
    similarities = settings.get("similarity", {})
    parameters: dict[str, tuple[float, float]] = {}
    for field in fields:
        if field not in mapping:
            raise ValueError(f"{index} has no field {field!r}; BM25 fields must be mapped text fields")
        name = mapping[field].get("similarity", "BM25")
        if name == "BM25":
            parameters[field] = (1.2, 0.75)
            continue
        definition = similarities.get(name)
        if definition is None or definition.get("type") != "BM25":
            raise ValueError(
                f"{index}.{field} uses similarity {name!r} ({definition}); only BM25 is replicated"
            )
        parameters[field] = (float(definition.get("k1", 1.2)), float(definition.get("b", 0.75)))
    return parameters


def save_snapshot(snapshot: IndexSnapshot, path: Path) -> None:
    arrays: dict[str, npt.NDArray[Any]] = {
        "chunk_ids": np.asarray(snapshot.chunk_ids, dtype=np.str_),
        "doc_ids": np.asarray(snapshot.doc_ids, dtype=np.str_),
        "embeddings": snapshot.embeddings,
    }
    for name, matrix in [
        ("sparse", snapshot.sparse),
        *((f"terms.{f}", m) for f, m in snapshot.terms.items()),
    ]:
        arrays[f"{name}.vocabulary"] = np.asarray(matrix.vocabulary, dtype=np.str_)
        arrays[f"{name}.indptr"] = matrix.indptr
        arrays[f"{name}.term_ids"] = matrix.term_ids
        arrays[f"{name}.values"] = matrix.values
    meta = {
        "index": snapshot.index,
        "key": snapshot.key,
        "fields": list(snapshot.terms),
        "statistics": {
            f: {"k1": s.k1, "b": s.b, "doc_count": s.doc_count, "sum_ttf": s.sum_total_term_freq}
            for f, s in snapshot.statistics.items()
        },
    }
    arrays["meta"] = np.asarray(json.dumps(meta))
    for field, stats in snapshot.statistics.items():
        arrays[f"doc_freq.{field}.terms"] = np.asarray(list(stats.doc_freq), dtype=np.str_)
        arrays[f"doc_freq.{field}.counts"] = np.asarray(list(stats.doc_freq.values()), dtype=np.int64)
    temporary = path.with_suffix(".tmp.npz")
    np.savez(temporary, **arrays)  # type: ignore[arg-type]
    temporary.replace(path)


def load_snapshot(path: Path) -> IndexSnapshot:
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))

        def matrix(name: str) -> TermMatrix:
            return TermMatrix(
                vocabulary=tuple(str(t) for t in data[f"{name}.vocabulary"]),
                indptr=data[f"{name}.indptr"],
                term_ids=data[f"{name}.term_ids"],
                values=data[f"{name}.values"],
            )

        def statistics(field: str) -> FieldStatistics:
            stats = meta["statistics"][field]
            terms = [str(t) for t in data[f"doc_freq.{field}.terms"]]
            counts = [int(c) for c in data[f"doc_freq.{field}.counts"]]
            return FieldStatistics(
                k1=stats["k1"],
                b=stats["b"],
                doc_count=stats["doc_count"],
                sum_total_term_freq=stats["sum_ttf"],
                doc_freq=dict(zip(terms, counts, strict=True)),
            )

        return IndexSnapshot(
            index=meta["index"],
            key=meta["key"],
            chunk_ids=tuple(str(c) for c in data["chunk_ids"]),
            doc_ids=tuple(str(d) for d in data["doc_ids"]),
            embeddings=data["embeddings"],
            sparse=matrix("sparse"),
            terms={f: matrix(f"terms.{f}") for f in meta["fields"]},
            statistics={f: statistics(f) for f in meta["fields"]},
        )
