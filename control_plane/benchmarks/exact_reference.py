"""Exact-search reference: what OpenSearch's approximations cost, per configuration, as markdown.

    python -m control_plane.benchmarks.exact_reference --index chunks-nfcorpus \\
        --test-set nfcorpus/test --out model_artifacts/reports/exact-reference.md

For each query it runs OpenSearch's own bm25, splade, dense, hybrid-minmax and hybrid-rrf (plain
requests; hybrids with the repository's pipeline inline, sub-queries bm25, splade, dense,
``pagination_depth`` and k-NN ``k`` = the candidate depth) and the exact reference over a snapshot of
the same index (control_plane.evaluation.exact), from the same query encodings. It reports k-NN
Recall@100 of the index against exhaustive search, score parity per component, nDCG@10 and Recall@100
per configuration (OpenSearch vs exact), and where the differences come from: exact search at the
index's stored sparse precision, and the hybrid fusion replayed in Python over OpenSearch's own
component lists.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings, load_settings
from control_plane.evaluation.exact import (
    CONFIGURATIONS,
    ChunkScores,
    EncodedQuery,
    ExactIndex,
    FusionParameters,
    configuration_chunks,
    exact_components,
    runs_from_components,
    to_documents,
)
from control_plane.evaluation.snapshot import BM25_FIELDS, analyze, cached_snapshot
from control_plane.locations import RESOURCES_DIR
from control_plane.measures.metrics import Run, evaluate, per_query
from control_plane.models.dense import DenseEncoder
from control_plane.models.sparse import SparseEncoder
from control_plane.query.components import (
    COMPONENT_ORDER,
    DENSE_FIELD,
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)
from control_plane.resources.catalog import render_params
from control_plane.resources.render import render
from control_plane.testsets.catalog import Query, load_test_set

METRICS = ("ndcg@10", "recall@100")
GAP_LIMIT = 0.005
KNN_RECALL_K = 100
KNN_TARGET = 0.98
EF_SEARCH_SWEEP = (200, 400)  # also measured: what a larger HNSW candidate list would buy
ORDER_TOLERANCE = 1e-6  # relative: float32 keeps ~7 digits
RELATIVE_FLOOR = 1e-3  # relative differences only for scores above this share of the list's best
PIPELINE_FILES = {"hybrid-minmax": "hybrid-minmax.json", "hybrid-rrf": "hybrid-rrf.json"}


@dataclass(frozen=True)
class Options:
    index: str
    candidate_depth: int
    depth: int
    ef_search: int | None


@dataclass(frozen=True)
class Lists:
    """Per query, the chunk lists compared: OpenSearch's (bm25, splade, dense, knn@100, hybrid-minmax,
    hybrid-rrf), the exact components, the exact components at stored SPLADE precision, exact top 100."""

    opensearch: dict[str, dict[str, ChunkScores]]
    exact: dict[str, dict[str, ChunkScores]]
    stored: dict[str, dict[str, ChunkScores]]
    exact_knn: dict[str, ChunkScores]
    knn_by_ef_search: dict[int, dict[str, ChunkScores]]

    def single(self, component: str) -> dict[str, ChunkScores]:
        return {q: lists[component] for q, lists in self.opensearch.items()}


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index", default="chunks-nfcorpus", help="one concrete index to compare")
    parser.add_argument(
        "--test-set", default="nfcorpus/dev", help="test set id (nfcorpus/dev, nfcorpus/test)"
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report to write")
    parser.add_argument("--candidate-depth", type=int, default=300, help="chunks per component")
    parser.add_argument("--depth", type=int, default=100, help="documents per query in the runs")
    parser.add_argument(
        "--ef-search", type=int, help="k-NN ef_search of OpenSearch's runs (default: index's)"
    )
    parser.add_argument("--limit", type=int, help="only the first N queries (development)")
    args = parser.parse_args(argv)
    if args.candidate_depth < KNN_RECALL_K or args.depth < 1:
        parser.error(f"--candidate-depth must be ≥ {KNN_RECALL_K} and --depth ≥ 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    started = time.perf_counter()
    settings = load_settings()
    client = make_client(settings.opensearch)
    options = Options(args.index, args.candidate_depth, args.depth, args.ef_search)
    test_set = load_test_set(args.test_set)
    queries = list(test_set.queries())[: args.limit]
    judged = test_set.qrels()
    qrels = {q.query_id: judged[q.query_id] for q in queries}  # --limit: only the queries run
    snapshot = cached_snapshot(client, options.index)
    index = ExactIndex(snapshot)
    encoded = encode_queries(client, options.index, queries, settings)
    parameters = FusionParameters(
        weights=dict(zip(COMPONENT_ORDER, settings.fusion.weights.in_order(), strict=True)),
        rank_constant=settings.fusion.rrf.rank_constant,
    )
    pipelines = {name: inline_pipeline(settings, file) for name, file in PIPELINE_FILES.items()}
    lists = Lists(
        opensearch={q.query_id: opensearch_lists(client, options, q, pipelines) for q in encoded},
        exact=exact_components(index, encoded, options.candidate_depth),
        stored=exact_components(index, encoded, options.candidate_depth, index_precision=True),
        exact_knn={q.query_id: index.dense(q.dense, KNN_RECALL_K)[0] for q in encoded},
        knn_by_ef_search={
            ef: {q.query_id: knn_list(client, options.index, q, ef) for q in encoded}
            for ef in EF_SEARCH_SWEEP
        },
    )
    figures = compare(lists, index.doc_of, parameters, qrels, options)
    command = " ".join(["python -m control_plane.benchmarks.exact_reference", *(argv or sys.argv[1:])])
    header = Header(
        options,
        args.test_set,
        len(queries),
        snapshot.key,
        parameters,
        command,
        time.perf_counter() - started,
        describe_knn(client, options.index),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(figures, header), encoding="utf-8")
    print(f"k-NN Recall@{KNN_RECALL_K} {_mean(figures.knn_recall):.4f}; report written to {args.out}")
    return 0


# -- queries and OpenSearch runs --------------------------------------------------------------------


def encode_queries(
    client: OpenSearch, index: str, queries: Sequence[Query], settings: Settings
) -> list[EncodedQuery]:
    """The same encoders the inference service serves, and the index's own analyzer for BM25 terms."""
    texts = [q.text for q in queries]
    vectors = DenseEncoder.load(settings.models.dense).encode(texts)
    tokens = SparseEncoder.load(settings.models.sparse).encode(texts)
    return [
        EncodedQuery(
            query_id=q.query_id,
            text=q.text,
            terms={field: analyze(client, index, field, q.text) for field in BM25_FIELDS},
            sparse=tokens[i],
            dense=vectors[i],
        )
        for i, q in enumerate(queries)
    ]


def inline_pipeline(settings: Settings, file_name: str) -> dict[str, Any]:
    path = RESOURCES_DIR / "search_pipelines" / file_name
    pipeline: dict[str, Any] = render(json.loads(path.read_text(encoding="utf-8")), render_params(settings))
    pipeline.pop("description", None)
    return pipeline


def opensearch_lists(
    client: OpenSearch, options: Options, query: EncodedQuery, pipelines: Mapping[str, dict[str, Any]]
) -> dict[str, ChunkScores]:
    """OpenSearch's chunk rankings for one query: each component alone at the candidate depth, the
    k-NN top 100 (for Recall@100), and each hybrid pipeline over all three components."""
    depth = options.candidate_depth
    clauses = {
        "bm25": bm25_clause(query.text),
        "splade": sparse_tokens_clause(query.sparse),
        "dense": dense_vector_clause(query.dense.tolist(), depth, options.ef_search),
    }
    lists = {name: _search(client, options.index, clause, depth) for name, clause in clauses.items()}
    lists["knn@100"] = knn_list(client, options.index, query, options.ef_search)
    hybrid = hybrid_query(clauses)
    hybrid["hybrid"]["pagination_depth"] = depth
    for name, pipeline in pipelines.items():
        lists[name] = _search(client, options.index, hybrid, depth * len(clauses), pipeline)
    return lists


def describe_knn(client: OpenSearch, index: str) -> str:
    """The HNSW settings that decide k-NN recall: method parameters, ef_search, segments."""
    mapping = next(iter(client.indices.get_mapping(index=index).values()))["mappings"]["properties"]
    method = mapping[DENSE_FIELD].get("method", {})
    settings = client.indices.get_settings(index=index, include_defaults=True, flat_settings=True)
    values = next(iter(settings.values()))
    ef_search = {**values.get("defaults", {}), **values["settings"]}.get("index.knn.algo_param.ef_search")
    segments = client.cat.segments(index=index, format="json")
    return (
        f"{method.get('engine')} {method.get('name')} {method.get('space_type')} "
        f"{json.dumps(method.get('parameters', {}))}; index.knn.algo_param.ef_search {ef_search} (the "
        f"lucene engine searches each segment with max(k, ef_search) candidates); {len(segments)} segments"
    )


def knn_list(client: OpenSearch, index: str, query: EncodedQuery, ef_search: int | None) -> ChunkScores:
    """The index's k-NN top 100 (k = 100) for the query vector."""
    clause = dense_vector_clause(query.dense.tolist(), KNN_RECALL_K, ef_search)
    return _search(client, index, clause, KNN_RECALL_K)


def _search(
    client: OpenSearch, index: str, query: dict[str, Any], size: int, pipeline: dict[str, Any] | None = None
) -> ChunkScores:
    body: dict[str, Any] = {"size": size, "_source": False, "query": query}
    if pipeline is not None:
        body["search_pipeline"] = pipeline
    answer = client.search(index=index, body=body)
    return {hit["_id"]: float(hit["_score"]) for hit in answer["hits"]["hits"]}


# -- comparisons ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Parity:
    """OpenSearch's chunk lists against reference lists of the same queries. ``same_order``: same
    chunks, and OpenSearch's order never puts a chunk above one the reference scores higher by more
    than float32 rounding (so equal scores may come in either order)."""

    queries: int
    same_order: int
    same_set: int
    common_hits: int
    max_abs: float
    max_rel: float
    mean_rel: float


@dataclass(frozen=True)
class Figures:
    knn_recall: list[float]
    knn_recall_by_ef_search: dict[int, float]
    dense_recall_at_depth: list[float]
    dense_recall_at_100_in_runs: list[float]
    parity: dict[str, Parity]
    scores: dict[str, dict[str, dict[str, float]]]
    changed: dict[str, int]


def compare(
    lists: Lists,
    doc_of: Mapping[str, str],
    parameters: FusionParameters,
    qrels: Mapping[str, Mapping[str, int]],
    options: Options,
) -> Figures:
    """Every figure of the report, from the chunk lists."""
    opensearch, exact, stored = lists.opensearch, lists.exact, lists.stored
    single = {name: lists.single(name) for name in COMPONENT_ORDER}
    replay_components = {q: {n: single[n][q] for n in COMPONENT_ORDER} for q in opensearch}
    runs: dict[str, dict[str, Run]] = {
        "opensearch": {
            c.name: {q: to_documents(ls[c.name], doc_of, options.depth) for q, ls in opensearch.items()}
            for c in CONFIGURATIONS
        },
        "exact": runs_from_components(exact, doc_of, parameters, options.depth),
        "stored": runs_from_components(stored, doc_of, parameters, options.depth),
        "replay": runs_from_components(replay_components, doc_of, parameters, options.depth),
    }
    replayed = {
        c.name: {q: configuration_chunks(c, ls, parameters) for q, ls in replay_components.items()}
        for c in CONFIGURATIONS
        if c.fusion is not None
    }
    parity = {
        "bm25 vs exact": _parity(single["bm25"], _component(exact, "bm25")),
        "splade vs exact (float weights)": _parity(single["splade"], _component(exact, "splade")),
        "splade vs exact (stored 9-bit weights)": _parity(single["splade"], _component(stored, "splade")),
        "dense vs exact": _parity(single["dense"], _component(exact, "dense")),
        **{
            f"{name} vs Python fusion of OpenSearch's lists": _parity(lists.single(name), chunks)
            for name, chunks in replayed.items()
        },
    }
    return Figures(
        knn_recall=[_overlap(opensearch[q]["knn@100"], lists.exact_knn[q], KNN_RECALL_K) for q in opensearch],
        knn_recall_by_ef_search={
            ef: _mean([_overlap(found[q], lists.exact_knn[q], KNN_RECALL_K) for q in found])
            for ef, found in lists.knn_by_ef_search.items()
        },
        dense_recall_at_100_in_runs=[
            _overlap(opensearch[q]["dense"], lists.exact_knn[q], KNN_RECALL_K) for q in opensearch
        ],
        dense_recall_at_depth=[
            _overlap(opensearch[q]["dense"], exact[q]["dense"], options.candidate_depth) for q in opensearch
        ],
        parity=parity,
        scores={
            kind: {name: evaluate(qrels, run, METRICS) for name, run in r.items()} for kind, r in runs.items()
        },
        changed={
            c.name: _changed_queries(qrels, runs["opensearch"][c.name], runs["exact"][c.name])
            for c in CONFIGURATIONS
        },
    )


def _component(lists: Mapping[str, Mapping[str, ChunkScores]], name: str) -> dict[str, ChunkScores]:
    return {q: ls[name] for q, ls in lists.items()}


def _overlap(found: ChunkScores, exact: ChunkScores, k: int) -> float:
    truth = list(exact)[:k]
    return len(set(list(found)[:k]) & set(truth)) / len(truth) if truth else 1.0


def _parity(found: Mapping[str, ChunkScores], reference: Mapping[str, ChunkScores]) -> Parity:
    same_order = same_set = common = 0
    max_abs = max_rel = 0.0
    relative: list[float] = []
    for query_id, hits in found.items():
        ref = reference[query_id]
        same = set(hits) == set(ref)
        same_set += same
        same_order += same and _ordered_by(list(hits), ref)
        floor = RELATIVE_FLOOR * max((abs(v) for v in ref.values()), default=0.0)
        for chunk in hits.keys() & ref.keys():
            diff = hits[chunk] - ref[chunk]
            common += 1
            max_abs = max(max_abs, abs(diff))
            if abs(ref[chunk]) > floor:
                relative.append(diff / ref[chunk])
                max_rel = max(max_rel, abs(diff / ref[chunk]))
    mean_rel = math.fsum(relative) / len(relative) if relative else 0.0
    return Parity(len(found), same_order, same_set, common, max_abs, max_rel, mean_rel)


def _ordered_by(ranking: Sequence[str], scores: Mapping[str, float]) -> bool:
    """Whether ``ranking`` is a best-first order of ``scores`` up to float32 rounding."""
    values = [scores[chunk] for chunk in ranking]
    tolerance = ORDER_TOLERANCE * max((abs(v) for v in values), default=0.0)
    return all(later <= earlier + tolerance for earlier, later in itertools.pairwise(values))


def _changed_queries(qrels: Mapping[str, Mapping[str, int]], found: Run, exact: Run) -> int:
    a, b = per_query(qrels, found, ["ndcg@10"]), per_query(qrels, exact, ["ndcg@10"])
    return sum(1 for q in a if abs(a[q]["ndcg@10"] - b[q]["ndcg@10"]) > 1e-9)


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else float("nan")


# -- report -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    options: Options
    test_set_id: str
    query_count: int
    snapshot_key: str
    parameters: FusionParameters
    command: str
    seconds: float
    knn_index: str


def render_report(figures: Figures, header: Header) -> str:
    options, parameters = header.options, header.parameters
    knn = figures.knn_recall
    knn_mean = _mean(knn)
    lines = [
        f"# Exact-search reference: {options.index} on {header.test_set_id}",
        "",
        f"- command: `{header.command}` ({header.seconds:.0f} s, {datetime.now(UTC).date().isoformat()})",
        f"- {header.query_count} queries; snapshot `{header.snapshot_key}` (index uuid-docs-max_seq_no); "
        f"candidate depth {options.candidate_depth} chunks per component (k-NN `k`, hybrid "
        f"`pagination_depth`); runs of {options.depth} documents (chunks collapsed to documents by "
        "their best chunk)",
        f"- fusion: min-max weights {dict(parameters.weights)}, "
        f"RRF rank constant {parameters.rank_constant}; "
        f"k-NN ef_search: {options.ef_search or 'the index default'}",
        f"- k-NN index: {header.knn_index}",
        "- OpenSearch and the exact reference get the same query encodings (MiniLM vector, SPLADE tokens) "
        "and the same BM25 terms (the index's analyzer via `_analyze`); documents' terms come from "
        "`_mtermvectors`, vectors and SPLADE weights from `_source`.",
        "",
        "## k-NN recall of the index against exhaustive search (chunk level)",
        "",
        f"- **Recall@{KNN_RECALL_K}: {knn_mean:.4f}** (k = {KNN_RECALL_K}; target ≥ {KNN_TARGET}: "
        f"{'met' if knn_mean >= KNN_TARGET else 'NOT met'}); worst query {min(knn, default=math.nan):.2f}; "
        f"{sum(1 for r in knn if r >= 1.0)} of {len(knn)} queries at 1.00",
        "- the same with a larger HNSW candidate list: "
        + ", ".join(f"ef_search {ef}: {r:.4f}" for ef, r in figures.knn_recall_by_ef_search.items()),
        f"- the dense candidate list the runs use (k = {options.candidate_depth}): Recall@100 "
        f"{_mean(figures.dense_recall_at_100_in_runs):.4f}, Recall@{options.candidate_depth} "
        f"{_mean(figures.dense_recall_at_depth):.4f}",
        *_knn_explanation(figures, knn_mean, options.candidate_depth),
        "",
        "## Score parity (chunk level, each query's top candidate list)",
        "",
        "| OpenSearch list vs reference | same order | same set | common hits | max abs Δ | max rel Δ* "
        "| mean rel Δ* (OS − ref) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *[
            f"| {name} | {p.same_order}/{p.queries} | {p.same_set}/{p.queries} | {p.common_hits:,} | "
            f"{p.max_abs:.2e} | {p.max_rel:.2e} | {p.mean_rel:+.2e} |"
            for name, p in figures.parity.items()
        ],
        "",
        "*same order*: the same chunks, OpenSearch's order a best-first order of the reference scores (equal "
        "scores either way, 1e-6 relative); *rel Δ\\**: over scores above 0.001 × the list's best (near the "
        "min-max floor float32 cancellation makes relative figures meaningless).",
        "",
        "## Retrieval quality: OpenSearch vs exact (document level)",
        "",
        "| configuration | nDCG@10 OpenSearch | nDCG@10 exact | Δ | Recall@100 OpenSearch | Recall@100 exact "
        "| Δ | queries whose nDCG@10 moved | within 0.005 nDCG@10 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        *[_quality_row(name, figures) for name in figures.scores["opensearch"]],
        "",
        "## Where the differences come from",
        "",
        "Three further runs split each difference: *exact, stored precision* scores SPLADE with the weights "
        "as `rank_features` keeps them (9 significant bits) and is otherwise exact, so OpenSearch minus it "
        "is what HNSW (and float32 fusion rounding) costs; *Python fusion of OpenSearch's lists* applies "
        "this module's fusion maths to OpenSearch's own single-component lists, so OpenSearch minus it "
        "is what any difference in the fusion maths costs.",
        "",
        "| configuration | OS − exact | stored − exact (sparse precision) | OS − stored (HNSW) "
        "| OS − Python fusion of OS lists |",
        "|---|---:|---:|---:|---:|",
        *[_attribution_row(name, figures) for name in figures.scores["opensearch"]],
        "",
        *_explanations(figures),
        "",
        "Notes:",
        "- The index has one shard, so per-shard candidate lists equal the global ones: the hybrid's "
        "sub-query lists and min-max bounds are those of the whole index.",
        "- BM25 is exact in OpenSearch (no approximation): the replica reproduces Lucene's float32 "
        "scores, the norm's one-byte length quantisation included, so its runs equal OpenSearch's.",
        "- `rank_features` stores each SPLADE weight as the top 17 bits of its float32 (truncated, "
        "relative loss < 2⁻⁸ = 0.39 %), so OpenSearch's SPLADE scores sit a little below the exact "
        "dot product; the order of near-equal chunks can change, nothing else.",
        "- Equal scores within a component list come in document order in both (Lucene doc id; the snapshot "
        "keeps it); fused lists order equal scores by chunk id in Python and by doc id in OpenSearch, which "
        "cannot change a document run (the fused list is never cut before collapsing).",
        "",
    ]
    return "\n".join(lines)


def _delta(figures: Figures, kind: str, other: str, name: str, metric: str) -> float:
    return figures.scores[kind][name][metric] - figures.scores[other][name][metric]


def _signed(value: float) -> str:
    """+0.0012 / -0.0012, and +0.0000 rather than -0.0000 for a difference that rounds away."""
    return f"{value:+.4f}" if round(value, 4) != 0 else "+0.0000"


def _quality_row(name: str, figures: Figures) -> str:
    os_, ex = figures.scores["opensearch"][name], figures.scores["exact"][name]
    gap, recall_gap = os_["ndcg@10"] - ex["ndcg@10"], os_["recall@100"] - ex["recall@100"]
    cells = [
        f"{os_['ndcg@10']:.4f}",
        f"{ex['ndcg@10']:.4f}",
        _signed(gap),
        f"{os_['recall@100']:.4f}",
        f"{ex['recall@100']:.4f}",
        _signed(recall_gap),
        str(figures.changed[name]),
        "yes" if abs(gap) <= GAP_LIMIT else "**no**",
    ]
    return f"| {name} | " + " | ".join(cells) + " |"


def _attribution_row(name: str, figures: Figures) -> str:
    cells = [
        _delta(figures, "opensearch", "exact", name, "ndcg@10"),
        _delta(figures, "stored", "exact", name, "ndcg@10"),
        _delta(figures, "opensearch", "stored", name, "ndcg@10"),
    ]
    fused = name.startswith("hybrid")
    replay = _signed(_delta(figures, "opensearch", "replay", name, "ndcg@10")) if fused else "n/a"
    return f"| {name} | " + " | ".join(_signed(c) for c in cells) + f" | {replay} |"


def _knn_explanation(figures: Figures, recall: float, candidate_depth: int) -> list[str]:
    if recall >= KNN_TARGET:
        return []
    enough = [ef for ef, r in figures.knn_recall_by_ef_search.items() if r >= KNN_TARGET]
    fix = (
        f"ef_search {enough[0]} reaches {figures.knn_recall_by_ef_search[enough[0]]:.4f} "
        f"(`index.knn.algo_param.ef_search`, a dynamic index setting, or `method_parameters.ef_search` "
        "per k-NN query)"
        if enough
        else "no ef_search measured here reaches it: the graph itself (m, ef_construction) limits recall"
    )
    return [
        f"- Below {KNN_TARGET}: the lucene engine keeps max(k, ef_search) candidates per segment (k-NN "
        f"index line above), with k = {KNN_RECALL_K} no more than it returns, so each near miss of the "
        f"greedy graph walk is a lost neighbour; {fix}. The runs ask for k = {candidate_depth} and so "
        "search wider: their Recall@100 is the line above."
    ]


def _explanations(figures: Figures) -> list[str]:
    gaps = [
        name
        for name in figures.scores["opensearch"]
        if abs(_delta(figures, "opensearch", "exact", name, "ndcg@10")) > GAP_LIMIT
    ]
    if not gaps:
        return [f"Every configuration is within {GAP_LIMIT} nDCG@10 of its exact reference."]
    lines = [f"Configurations more than {GAP_LIMIT} nDCG@10 from their exact reference:"]
    for name in gaps:
        precision = _delta(figures, "stored", "exact", name, "ndcg@10")
        hnsw = _delta(figures, "opensearch", "stored", name, "ndcg@10")
        cause = "the stored SPLADE precision" if abs(precision) >= abs(hnsw) else "HNSW (approximate k-NN)"
        lines.append(
            f"- {name}: {_delta(figures, 'opensearch', 'exact', name, 'ndcg@10'):+.4f} = {precision:+.4f} "
            f"from the stored SPLADE precision + {hnsw:+.4f} from HNSW and float32 rounding; mostly {cause}."
        )
    return lines


if __name__ == "__main__":
    sys.exit(main())
