"""The exact-reference report: figures and a run header -> markdown (no I/O)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchmarks.exact_reference.figures import KNN_RECALL_K, Figures, Options, mean
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.evaluation.exact import FusionParameters
from control_plane.reports.markdown import markdown_table

GAP_LIMIT = 0.005
KNN_TARGET = 0.98


@dataclass(frozen=True)
class Header:
    """What the report says about the run besides the figures."""

    run: RunStamp
    options: Options
    test_set_id: str
    query_count: int
    snapshot_key: str
    parameters: FusionParameters
    knn_index: str


def render_report(figures: Figures, header: Header) -> str:
    options, parameters = header.options, header.parameters
    knn = figures.knn_recall
    knn_mean = mean(knn)
    opening = [
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
    ]
    lines = [
        *report_opening(
            f"Exact-search reference: {options.index} on {header.test_set_id}", header.run, opening
        ),
        "## k-NN recall of the index against exhaustive search (chunk level)",
        "",
        f"- **Recall@{KNN_RECALL_K}: {knn_mean:.4f}** (k = {KNN_RECALL_K}; target ≥ {KNN_TARGET}: "
        f"{'met' if knn_mean >= KNN_TARGET else 'NOT met'}); worst query {min(knn, default=math.nan):.2f}; "
        f"{sum(1 for r in knn if r >= 1.0)} of {len(knn)} queries at 1.00",
        "- the same with a larger HNSW candidate list: "
        + ", ".join(f"ef_search {ef}: {r:.4f}" for ef, r in figures.knn_recall_by_ef_search.items()),
        f"- the dense candidate list the runs use (k = {options.candidate_depth}): Recall@100 "
        f"{mean(figures.dense_recall_at_100_in_runs):.4f}, Recall@{options.candidate_depth} "
        f"{mean(figures.dense_recall_at_depth):.4f}",
        *_knn_explanation(figures, knn_mean, options.candidate_depth),
        "",
        "## Score parity (chunk level, each query's top candidate list)",
        "",
        *parity_table(figures),
        "",
        "*same order*: the same chunks, OpenSearch's order a best-first order of the reference scores (equal "
        "scores either way, 1e-6 relative); *rel Δ\\**: over scores above 0.001 × the list's best (near the "
        "min-max floor float32 cancellation makes relative figures meaningless).",
        "",
        "## Retrieval quality: OpenSearch vs exact (document level)",
        "",
        *quality_table(figures),
        "",
        "## Where the differences come from",
        "",
        "Three further runs split each difference: *exact, stored precision* scores SPLADE with the weights "
        "as `rank_features` keeps them (9 significant bits) and is otherwise exact, so OpenSearch minus it "
        "is what HNSW (and float32 fusion rounding) costs; *Python fusion of OpenSearch's lists* applies "
        "this module's fusion maths to OpenSearch's own single-component lists, so OpenSearch minus it "
        "is what any difference in the fusion maths costs.",
        "",
        *attribution_table(figures),
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


def parity_table(figures: Figures) -> list[str]:
    header = [
        "OpenSearch list vs reference",
        "same order",
        "same set",
        "common hits",
        "max abs Δ",
        "max rel Δ*",
        "mean rel Δ* (OS − ref)",
    ]
    rows = [
        [
            name,
            f"{p.same_order}/{p.queries}",
            f"{p.same_set}/{p.queries}",
            f"{p.common_hits:,}",
            f"{p.max_abs:.2e}",
            f"{p.max_rel:.2e}",
            f"{p.mean_rel:+.2e}",
        ]
        for name, p in figures.parity.items()
    ]
    return markdown_table(header, rows, align="lrrrrrr")


def quality_table(figures: Figures) -> list[str]:
    header = [
        "configuration",
        "nDCG@10 OpenSearch",
        "nDCG@10 exact",
        "Δ",
        "Recall@100 OpenSearch",
        "Recall@100 exact",
        "Δ",
        "queries whose nDCG@10 moved",
        "within 0.005 nDCG@10",
    ]
    rows = [_quality_row(name, figures) for name in figures.scores["opensearch"]]
    return markdown_table(header, rows, align="lrrrrrrrl")


def attribution_table(figures: Figures) -> list[str]:
    header = [
        "configuration",
        "OS − exact",
        "stored − exact (sparse precision)",
        "OS − stored (HNSW)",
        "OS − Python fusion of OS lists",
    ]
    rows = [_attribution_row(name, figures) for name in figures.scores["opensearch"]]
    return markdown_table(header, rows, align="lrrrr")


def _quality_row(name: str, figures: Figures) -> list[str]:
    os_, ex = figures.scores["opensearch"][name], figures.scores["exact"][name]
    gap, recall_gap = os_["ndcg@10"] - ex["ndcg@10"], os_["recall@100"] - ex["recall@100"]
    return [
        name,
        f"{os_['ndcg@10']:.4f}",
        f"{ex['ndcg@10']:.4f}",
        _signed(gap),
        f"{os_['recall@100']:.4f}",
        f"{ex['recall@100']:.4f}",
        _signed(recall_gap),
        str(figures.changed[name]),
        "yes" if abs(gap) <= GAP_LIMIT else "**no**",
    ]


def _attribution_row(name: str, figures: Figures) -> list[str]:
    differences = [
        _delta(figures, "opensearch", "exact", name, "ndcg@10"),
        _delta(figures, "stored", "exact", name, "ndcg@10"),
        _delta(figures, "opensearch", "stored", name, "ndcg@10"),
    ]
    fused = name.startswith("hybrid")
    replay = _signed(_delta(figures, "opensearch", "replay", name, "ndcg@10")) if fused else "n/a"
    return [name, *(_signed(d) for d in differences), replay]


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
