"""Build the cross-encoder's training data once and cache it as JSON lines under .cache/reranker/data/<key>/.

Training material only; no dev or test judgment is read to make a training example:

* ``nfcorpus``: train queries. Positives are the chunks of the documents qrels/train grades > 0 (every
  grade in BEIR's train split is 1); negatives are the chunks the project's first stage ranks highest
  for the query (the ``bm25_clause`` of control_plane.query through OpenSearch on ``chunks-nfcorpus``, or
  the hybrid-rrf pipeline) whose document the query's train judgments do not grade > 0. Passages are
  chunk text because that is what the rerank pipelines send the model (``document_fields: ["text"]``).
* ``scifact``: train claims (less the first ``scifact_held_out`` judged ones); positives the cited
  abstracts, negatives from an in-process BM25 — or, with the ``hybrid`` miner, the chunks of
  ``chunks-scifact`` that hybrid-rrf returns, as for NFCorpus.
* ``medline``: self-supervised title → abstract pairs (English citations with an abstract); negatives
  the other abstracts the in-process BM25 ranks highest for the title.

Every training query passes the :class:`~model_artifacts.reranker.pairs.LeakageGuard` (no NFCorpus dev or
test query, and no held-out SciFact claim, by id or text). ``nfcorpus-dev.jsonl`` holds the first-stage
candidates of the dev queries with their dev grades, for validation only. ``data.json`` records the
settings and each file's sha256.
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

from control_plane.checksums import sha256_file
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.datasets.locate import dataset_folder
from control_plane.evaluation.query_sets import load_evaluation_set
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers.medline import iter_medline
from control_plane.query.components import bm25_clause
from control_plane.testsets.catalog import load_test_set
from model_artifacts.reranker.bm25 import Bm25
from model_artifacts.reranker.config import SOURCES, DataSettings, config_by_name
from model_artifacts.reranker.pairs import (
    LeakageGuard,
    TrainQuery,
    mine_negatives,
    normalise_query,
    positive_passages,
    retrieved_positives,
)
from model_artifacts.reranker.teacher import (
    TEACHER_SOURCES,
    fused_scores,
    parse_teacher,
    teacher_file,
    teacher_record,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ROOT = REPO_ROOT / ".cache" / "reranker" / "data"
MANIFEST_FILE = "data.json"
HYBRID_PIPELINE = "hybrid-rrf"
_MSEARCH_BATCH = 64
_SCROLL_BATCH = 1000
log = logging.getLogger(__name__)


class DataError(RuntimeError):
    """Training data cannot be built or read; the message says what to run."""


@dataclass(frozen=True)
class Passage:
    id: str
    doc_id: str
    text: str


@dataclass(frozen=True)
class DevQuery:
    """A dev query, its first-stage passages (best first) and its dev grades (doc id → grade)."""

    query_id: str
    text: str
    candidates: tuple[str, ...]
    grades: Mapping[str, int]


@dataclass(frozen=True)
class SourceData:
    queries: list[TrainQuery]
    passages: dict[str, str]


@dataclass(frozen=True)
class TrainingData:
    folder: Path
    sources: dict[str, SourceData]
    dev: list[DevQuery]
    doc_of: dict[str, str]
    """NFCorpus passage (chunk) id → document id, for the dev candidates."""
    manifest: dict[str, Any]
    teachers: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)
    """source → query id → passage id → the teacher's score (``teacher.py``); empty without one."""


def held_out_guard(settings: DataSettings) -> LeakageGuard:
    """Every NFCorpus dev and test query (ids and texts), and the first ``settings.scifact_held_out``
    judged scifact/train claims: never a training query."""
    queries = {
        q.query_id: q.text for split in ("dev", "test") for q in load_test_set(f"nfcorpus/{split}").queries()
    }
    guard = LeakageGuard.from_queries("nfcorpus", queries)
    if settings.scifact_held_out:
        claims = load_evaluation_set("scifact/train", limit=settings.scifact_held_out).queries
        guard = guard.union(LeakageGuard.from_queries("scifact", {q.query_id: q.text for q in claims}))
    return guard


# -- first stage through OpenSearch (NFCorpus) ------------------------------------------------------


def indexed_chunks(client: OpenSearch, index: str) -> list[Passage]:
    """Every chunk of ``index`` (id, doc_id, text), sorted by id."""
    body = {"size": _SCROLL_BATCH, "sort": ["_doc"], "_source": ["doc_id", "text"]}
    answer = client.search(index=index, body=body, scroll="5m")
    scroll_id = answer.get("_scroll_id")
    chunks: list[Passage] = []
    try:
        while answer["hits"]["hits"]:
            chunks.extend(
                Passage(hit["_id"], hit["_source"]["doc_id"], hit["_source"]["text"])
                for hit in answer["hits"]["hits"]
            )
            answer = client.scroll(body={"scroll": "5m", "scroll_id": scroll_id})
            scroll_id = answer.get("_scroll_id", scroll_id)
    finally:
        if scroll_id:
            client.clear_scroll(body={"scroll_id": [scroll_id]}, ignore=(404,))
    return sorted(chunks, key=lambda c: c.id)


def first_stage(
    client: OpenSearch, index: str, texts: Sequence[str], depth: int, miner: str
) -> list[list[str]]:
    """The top ``depth`` chunk ids for each text: the project's BM25 clause (msearch), or hybrid-rrf."""
    if miner == "hybrid":
        return [list(fused_scores(client, index, text, depth, HYBRID_PIPELINE)) for text in texts]
    ranked: list[list[str]] = []
    for start in range(0, len(texts), _MSEARCH_BATCH):
        lines: list[dict[str, Any]] = []
        for text in texts[start : start + _MSEARCH_BATCH]:
            lines += [{}, {"size": depth, "_source": False, "query": bm25_clause(text)}]
        for answer in client.msearch(body=lines, index=index)["responses"]:
            if "error" in answer:
                raise DataError(f"first-stage search on {index} failed: {answer['error']}")
            ranked.append([hit["_id"] for hit in answer["hits"]["hits"]])
    return ranked


def mine_indexed(
    client: OpenSearch,
    source: str,
    test_set_id: str,
    index: str,
    settings: DataSettings,
    guard: LeakageGuard,
) -> tuple[list[Passage], list[TrainQuery], int]:
    """(chunks of ``index``, training queries of ``test_set_id`` mined from it, queries the guard dropped).

    Positives and negatives are chunks the first stage returns for the query, so training sees what the
    rerank processor will send."""
    chunks = indexed_chunks(client, index)
    if not chunks:
        raise DataError(f"index {index} holds no chunks: run `biohybrid ingest {source}` first")
    doc_of = {c.id: c.doc_id for c in chunks}
    passages_of: dict[str, list[str]] = {}
    for chunk in chunks:
        passages_of.setdefault(chunk.doc_id, []).append(chunk.id)
    train = load_test_set(test_set_id)
    qrels = train.qrels()
    allowed = [q for q in train.queries() if guard.allows(source, q.query_id, q.text)]
    dropped = len(qrels) - len(allowed)
    ranked = first_stage(client, index, [q.text for q in allowed], settings.mine_depth, settings.miner)
    queries = []
    for query, hits in zip(allowed, ranked, strict=True):
        judged = qrels[query.query_id]
        if settings.nfcorpus_positives == "retrieved":
            positives = retrieved_positives(hits, doc_of, judged)
        else:
            positives = positive_passages(judged, passages_of)
        if positives:
            negatives = mine_negatives(hits, doc_of, judged, settings.negatives_per_query)
            queries.append(TrainQuery(source, query.query_id, query.text, positives, negatives))
    return chunks, queries, dropped


def build_nfcorpus(
    client: OpenSearch, settings: DataSettings, guard: LeakageGuard
) -> tuple[list[Passage], list[TrainQuery], list[DevQuery], int]:
    """(passages, training queries, dev candidates, training queries the guard dropped)."""
    chunks, queries, dropped = mine_indexed(
        client, "nfcorpus", "nfcorpus/train", settings.nfcorpus_index, settings, guard
    )
    dev_set = load_test_set("nfcorpus/dev")
    dev_queries = list(dev_set.queries())
    dev_ranked = first_stage(
        client, settings.nfcorpus_index, [q.text for q in dev_queries], settings.dev_depth, settings.miner
    )
    dev = [
        DevQuery(q.query_id, q.text, tuple(hits), dict(dev_set.qrels()[q.query_id]))
        for q, hits in zip(dev_queries, dev_ranked, strict=True)
    ]
    return chunks, queries, dev, dropped


# -- in-process BM25 sources (SciFact, MEDLINE) -----------------------------------------------------


def build_scifact(settings: DataSettings, guard: LeakageGuard) -> tuple[list[Passage], list[TrainQuery], int]:
    train = load_test_set("scifact/train")
    docs = list(train.corpus())
    passages = [Passage(d.doc_id, d.doc_id, d.text) for d in docs]
    index = Bm25([f"{d.title} {d.text}" for d in docs])
    identity = {d.doc_id: d.doc_id for d in docs}
    qrels = train.qrels()
    queries, dropped = [], 0
    for query in train.queries():
        if not guard.allows("scifact", query.query_id, query.text):
            dropped += 1
            continue
        judged = qrels[query.query_id]
        positives = {doc: grade for doc, grade in judged.items() if grade > 0 and doc in identity}
        if positives:
            hits = [docs[i].doc_id for i in index.top(query.text, settings.mine_depth)]
            negatives = mine_negatives(hits, identity, judged, settings.negatives_per_query)
            queries.append(TrainQuery("scifact", query.query_id, query.text, positives, negatives))
    return passages, queries, dropped


def medline_pairs(
    documents: Iterable[Document], limit: int, min_words: int, guard: LeakageGuard
) -> tuple[list[Passage], list[str], int]:
    """(abstract passages, their titles) of the first ``limit`` English citations with a title of ≥ 4 words
    and an abstract of ≥ ``min_words`` words; repeated titles and held-out query texts are skipped."""
    passages: list[Passage] = []
    titles: list[str] = []
    seen: set[str] = set()
    dropped = 0
    for doc in documents:
        if len(passages) == limit:
            break
        abstract = " ".join(doc.span_text(s) for s in doc.sections)
        key = normalise_query(doc.title)
        if (
            doc.metadata.get("language") != "eng"
            or len(key.split()) < 4
            or len(abstract.split()) < min_words
            or key in seen
        ):
            continue
        seen.add(key)
        if not guard.allows("medline", doc.doc_id, doc.title):
            dropped += 1
            continue
        passages.append(Passage(doc.doc_id, doc.doc_id, abstract))
        titles.append(doc.title)
    return passages, titles, dropped


def medline_documents() -> Iterator[Document]:
    """The shared MEDLINE sample's citations, file by file in name order (parse errors skipped)."""
    files = sorted(dataset_folder("medline").glob("*.xml.gz"))
    if not files:
        raise DataError(f"no MEDLINE files (*.xml.gz) in {dataset_folder('medline')}")
    return (
        d for d in itertools.chain.from_iterable(iter_medline(f) for f in files) if isinstance(d, Document)
    )


def build_medline(settings: DataSettings, guard: LeakageGuard) -> tuple[list[Passage], list[TrainQuery], int]:
    passages, titles, dropped = medline_pairs(
        medline_documents(), settings.medline_limit, settings.medline_min_words, guard
    )
    index = Bm25([p.text for p in passages])
    queries = []
    for i, (passage, title) in enumerate(zip(passages, titles, strict=True)):
        hits = [passages[j].id for j in index.top(title, settings.negatives_per_query, exclude={i})]
        queries.append(TrainQuery("medline", passage.id, title, {passage.id: 1}, tuple(hits)))
    return passages, queries, dropped


# -- the cache --------------------------------------------------------------------------------------


def data_folder(settings: DataSettings, root: Path = DEFAULT_ROOT) -> Path:
    return root / settings.key()


def ensure_data(settings: DataSettings, root: Path = DEFAULT_ROOT, *, rebuild: bool = False) -> Path:
    """Build whichever sources are not cached yet (all with ``rebuild``); return the folder."""
    folder = data_folder(settings, root)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(folder)
    if manifest.get("settings") not in (None, asdict(settings)):
        raise DataError(f"{folder / MANIFEST_FILE} was built with other settings; delete {folder} to rebuild")
    manifest["settings"] = asdict(settings)
    built = manifest.setdefault("sources", {})
    missing = [s for s in SOURCES if rebuild or s not in built or not _files_intact(folder, built[s])]
    if not missing:
        return folder
    guard = held_out_guard(settings)
    manifest["held_out_queries"] = len(guard.held_out_ids)
    manifest.pop("teachers", None)  # they score the queries being rebuilt
    for source in missing:
        log.info("building training data", extra={"source": source, "folder": str(folder)})
        built[source] = _build_source(source, settings, guard, folder)
        _write_manifest(folder, manifest)
    return folder


def teacher_sources(settings: DataSettings) -> tuple[str, ...]:
    """The sources a pipeline can score: those mined from an index."""
    return tuple(s for s in TEACHER_SOURCES if s == "nfcorpus" or settings.miner == "hybrid")


def ensure_teacher(settings: DataSettings, pipeline: str, root: Path = DEFAULT_ROOT) -> Path:
    """Score every training query's passages with ``pipeline`` (``teacher.py``), once; return the folder.

    Needs the training data built (``ensure_data``) and the node with the indices it was mined from."""
    folder = data_folder(settings, root)
    manifest = _read_manifest(folder)
    recorded = manifest.setdefault("teachers", {}).setdefault(pipeline, {})
    indices = {"nfcorpus": settings.nfcorpus_index, "scifact": settings.scifact_index}
    for source in teacher_sources(settings):
        name = teacher_file(source, pipeline)
        if name in recorded and _files_intact(folder, {"files": {name: recorded[name]}}):
            continue
        log.info("scoring training passages", extra={"source": source, "pipeline": pipeline})
        client = _client()
        queries = [TrainQuery.from_json(r) for r in read_jsonl(folder / f"{source}-train.jsonl")]
        records = [
            teacher_record(q, fused_scores(client, indices[source], q.text, settings.mine_depth, pipeline))
            for q in queries
        ]
        recorded[name] = _write_jsonl(folder / name, records)
        _write_manifest(folder, manifest)
    return folder


def _build_source(source: str, settings: DataSettings, guard: LeakageGuard, folder: Path) -> dict[str, Any]:
    dev: list[DevQuery] = []
    if source == "nfcorpus":
        passages, queries, dev, dropped = build_nfcorpus(_client(), settings, guard)
    elif source == "scifact" and settings.miner == "hybrid":
        passages, queries, dropped = mine_indexed(
            _client(), "scifact", "scifact/train", settings.scifact_index, settings, guard
        )
    elif source == "scifact":
        passages, queries, dropped = build_scifact(settings, guard)
    else:
        passages, queries, dropped = build_medline(settings, guard)
    files = {
        f"{source}-passages.jsonl": [asdict(p) for p in passages],
        f"{source}-train.jsonl": [q.to_json() for q in queries],
    }
    if dev:
        files[f"{source}-dev.jsonl"] = [
            {
                "query_id": d.query_id,
                "text": d.text,
                "candidates": list(d.candidates),
                "grades": dict(d.grades),
            }
            for d in dev
        ]
    entry: dict[str, Any] = {
        "queries": len(queries),
        "passages": len(passages),
        "dropped_by_guard": dropped,
        "mean_negatives": round(sum(len(q.negatives) for q in queries) / max(len(queries), 1), 2),
        "files": {},
    }
    for name, records in files.items():
        entry["files"][name] = _write_jsonl(folder / name, records)
    return entry


def _client() -> OpenSearch:
    settings = load_settings()
    client = make_client(settings.opensearch)
    try:
        client.info()
    except OpenSearchConnectionError:
        raise DataError(
            f"OpenSearch at {settings.opensearch.url} is unreachable; NFCorpus negatives are mined there. "
            "Start the node (make node-up) or build the data where it runs "
            "(python -m model_artifacts.reranker.data --config <name>) and copy .cache/reranker/data/."
        ) from None
    return client


def load_data(folder: Path, teacher: str | None = None) -> TrainingData:
    """The cached training data; with ``teacher``, that pipeline's scores too (``ensure_teacher``)."""
    manifest = _read_manifest(folder)
    built = manifest.get("sources", {})
    missing = [s for s in SOURCES if s not in built]
    if missing:
        raise DataError(f"{folder} lacks the sources {missing}: run python -m model_artifacts.reranker.data")
    sources: dict[str, SourceData] = {}
    doc_of: dict[str, str] = {}
    for source in SOURCES:
        passages = {}
        for record in read_jsonl(folder / f"{source}-passages.jsonl"):
            passages[record["id"]] = record["text"]
            if source == "nfcorpus":
                doc_of[record["id"]] = record["doc_id"]
        queries = [TrainQuery.from_json(r) for r in read_jsonl(folder / f"{source}-train.jsonl")]
        sources[source] = SourceData(queries=queries, passages=passages)
    dev = [
        DevQuery(
            r["query_id"], r["text"], tuple(r["candidates"]), {k: int(v) for k, v in r["grades"].items()}
        )
        for r in read_jsonl(folder / "nfcorpus-dev.jsonl")
    ]
    teachers: dict[str, dict[str, dict[str, float]]] = {}
    if teacher is not None:
        recorded = manifest.get("teachers", {}).get(teacher, {})
        for source in SOURCES:
            name = teacher_file(source, teacher)
            if name in recorded:
                teachers[source] = parse_teacher(list(read_jsonl(folder / name)))
        if not teachers:
            raise DataError(
                f"{folder} holds no {teacher} teacher scores: run python -m model_artifacts.reranker.data "
                f"--config <name> (it scores them when the config distils)"
            )
    return TrainingData(
        folder=folder, sources=sources, dev=dev, doc_of=doc_of, manifest=manifest, teachers=teachers
    )


def _write_jsonl(path: Path, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
    tmp.replace(path)
    return {"lines": len(records), "sha256": sha256_file(path)}


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)


def _files_intact(folder: Path, entry: Mapping[str, Any]) -> bool:
    return all(
        (folder / name).is_file() and sha256_file(folder / name) == f["sha256"]
        for name, f in entry["files"].items()
    )


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / MANIFEST_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _write_manifest(folder: Path, manifest: Mapping[str, Any]) -> None:
    tmp = folder / (MANIFEST_FILE + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    tmp.replace(folder / MANIFEST_FILE)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m model_artifacts.reranker.data",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", default="cpu", help="training config whose data settings to build")
    parser.add_argument(
        "--root", type=Path, default=DEFAULT_ROOT, help="cache root (default .cache/reranker/data)"
    )
    parser.add_argument("--rebuild", action="store_true", help="rebuild every source even if cached")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        config = config_by_name(args.config)
        folder = ensure_data(config.data, args.root, rebuild=args.rebuild)
        if config.distil_from is not None:
            ensure_teacher(config.data, config.distil_from, args.root)
    except (DataError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"folder": str(folder), **_read_manifest(folder)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
