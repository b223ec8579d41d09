"""What the BM25 grid reads from the cluster, once per split: OpenSearch's component lists (cached),
a snapshot of the index for the exact reference, and the queries as the index analyses them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass

from opensearchpy import OpenSearch

from benchmarks.fusion_grid.compute import Split, collect
from control_plane.config.settings import Settings
from control_plane.evaluation.exact import ExactIndex
from control_plane.evaluation.snapshot import analyze, cached_snapshot, snapshot_key
from control_plane.locations import REPOSITORY_ROOT
from control_plane.query.components import BM25_FIELD_BOOSTS
from control_plane.testsets.catalog import load_test_set

CACHE_DIR = REPOSITORY_ROOT / ".cache" / "bm25-grid"
FLAT_BOOSTS: Mapping[str, float] = dict.fromkeys(BM25_FIELD_BOOSTS, 1.0)
TITLE_BOOSTS: Mapping[str, float] = {**BM25_FIELD_BOOSTS, "title_path": 2.0 * BM25_FIELD_BOOSTS["title_path"]}
BOOST_VARIANTS: Mapping[str, Mapping[str, float]] = {
    "current": BM25_FIELD_BOOSTS,
    "flat (all 1.0)": FLAT_BOOSTS,
    "title x2": TITLE_BOOSTS,
}


@dataclass(frozen=True)
class Prepared:
    """A split with what every point reuses: OpenSearch's lists, the exact index, the analysed queries."""

    split: Split
    index: ExactIndex
    terms: dict[str, dict[str, tuple[str, ...]]]  # query id -> field -> analysed terms
    boosts: dict[str, dict[str, float]]  # variant -> boosts over the fields this index has


def cached_collect(client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int) -> Split:
    """OpenSearch's component lists, from .cache/bm25-grid while the index and the models are unchanged."""
    key = hashlib.sha256(
        json.dumps(
            [snapshot_key(client, index), settings.models.dense, settings.models.sparse, depth]
        ).encode()
    ).hexdigest()[:12]
    path = CACHE_DIR / f"{test_set.replace('/', '-')}-{index}-{key}.json"
    if path.is_file():
        saved = json.loads(path.read_text(encoding="utf-8"))
        return Split(test_set, index, load_test_set(test_set).qrels(), saved["lists"], saved["doc_of"])
    split = collect(client, settings, test_set, index, depth)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"lists": split.lists, "doc_of": split.doc_of}), encoding="utf-8")
    return split


def prepare(client: OpenSearch, settings: Settings, test_set: str, index: str, depth: int) -> Prepared:
    split = cached_collect(client, settings, test_set, index, depth)
    mapped = client.indices.get_mapping(index=index)
    properties = next(iter(mapped.values()))["mappings"]["properties"]
    fields = tuple(f for f in BM25_FIELD_BOOSTS if f in properties)  # old indices lack `identifiers`
    snapshot = cached_snapshot(client, index, fields)
    texts = dict(_query_texts(test_set))
    terms = {
        query_id: {field: analyze(client, index, field, texts[query_id]) for field in fields}
        for query_id in split.lists
    }
    boosts = {name: {f: v for f, v in b.items() if f in fields} for name, b in BOOST_VARIANTS.items()}
    return Prepared(split, ExactIndex(snapshot), terms, boosts)


def _query_texts(test_set: str) -> list[tuple[str, str]]:
    return [(q.query_id, q.text) for q in load_test_set(test_set).queries()]
