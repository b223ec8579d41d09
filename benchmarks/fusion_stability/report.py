"""The fusion-stability report: figures and a run header -> markdown (no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.fusion_stability.compute import (
    COMPARED,
    STRATA,
    Comparison,
    ConfigurationStability,
    PairSet,
)
from benchmarks.run_stamp import RunStamp, report_opening
from control_plane.measures.stability import HIGHER_IS_STABLER, MEASURES, NEAR_DUPLICATE_OVERLAP, PairRule
from control_plane.reports.markdown import markdown_table

EXAMPLES_PER_STRATUM = 3
LABELS: dict[str, str] = {
    "topk_jaccard": "Jaccard@10 ↑",
    "rbo": "RBO@10 (p=0.9) ↑",
    "within_pair_metric_variance": "within-pair nDCG@10 variance ↓",
    "mean_abs_metric_difference": "mean abs ΔnDCG@10 ↓",
}


@dataclass(frozen=True)
class Header:
    """What the report says about the run: the run itself, the index and the test's settings."""

    run: RunStamp
    test_set_id: str
    index: str
    index_chunks: int
    index_documents: int
    depth: int
    candidate_depth: int
    rule: PairRule
    permutations: int
    seed: int
    alpha: float


def _degraded(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "0"


def stability_table(results: Sequence[ConfigurationStability]) -> list[str]:
    header = [
        "configuration",
        *(LABELS[name] for name in MEASURES),
        "variance share ↓",
        "mean nDCG@10",
        "degraded queries",
    ]
    rows = [
        [
            r.name,
            *(f"{r.means[name]:.4f}" for name in MEASURES),
            f"{r.variance_share:.3f}",
            f"{r.mean_metric:.4f}",
            _degraded(r.degraded),
        ]
        for r in results
    ]
    return markdown_table(header, rows)


def stratum_table(results: Sequence[ConfigurationStability], pair_set: PairSet) -> list[str]:
    counts = {stratum: pair_set.strata.count(stratum) for stratum in STRATA}
    header = ["configuration", "wording", "pairs", *(LABELS[name] for name in MEASURES)]
    rows = [
        [r.name, stratum, str(counts[stratum]), *(f"{r.by_stratum[stratum][n]:.4f}" for n in MEASURES)]
        for r in results
        for stratum in STRATA
    ]
    return markdown_table(header, rows)


def _stabler(comparison: Comparison, alpha: float) -> str:
    """The stabler configuration when both tests agree at ``alpha``, else "no difference"."""
    difference = comparison.by_pair.mean_difference
    if difference == 0:
        return "equal"
    rrf_better = (difference > 0) == HIGHER_IS_STABLER[comparison.measure]
    leader = COMPARED[0] if rrf_better else COMPARED[1]
    if max(comparison.by_pair.p_value, comparison.by_set.p_value) < alpha:
        return leader
    return f"no difference at {alpha} (point estimate: {leader})"


def comparison_table(
    comparisons: Sequence[Comparison],
    treatment: ConfigurationStability,
    baseline: ConfigurationStability,
    alpha: float,
) -> list[str]:
    header = [
        "measure",
        treatment.name,
        baseline.name,
        "difference (RRF − min-max)",
        "p, pairs as units",
        "p, relevance sets as units",
        "stabler",
    ]
    rows = [
        [
            LABELS[c.measure],
            f"{treatment.means[c.measure]:.4f}",
            f"{baseline.means[c.measure]:.4f}",
            f"{c.by_pair.mean_difference:+.4f}",
            f"{c.by_pair.p_value:.4f} (n={c.by_pair.n})",
            f"{c.by_set.p_value:.4f} (n={c.by_set.n}, diff {c.by_set.mean_difference:+.4f})",
            _stabler(c, alpha),
        ]
        for c in comparisons
    ]
    return markdown_table(header, rows)


def example_lines(pair_set: PairSet) -> list[str]:
    lines = []
    for stratum in STRATA:
        chosen = [i for i, s in enumerate(pair_set.strata) if s == stratum][:EXAMPLES_PER_STRATUM]
        lines.append(f"- {stratum}:")
        for i in chosen:
            a, b = pair_set.pairs[i]
            lines.append(
                f"  - `{a}` {pair_set.texts[a]!r} | `{b}` {pair_set.texts[b]!r} "
                f"(word overlap {pair_set.overlaps[i]:.2f})"
            )
    return lines


def render_report(
    header: Header,
    pair_set: PairSet,
    results: Sequence[ConfigurationStability],
    comparisons: Sequence[Comparison] | None,
    plot_name: str,
) -> str:
    counts = {stratum: pair_set.strata.count(stratum) for stratum in STRATA}
    opening = [
        f"- {len(results)} configurations x {len(pair_set.query_ids)} queries",
        f"- Index `{header.index}` ({header.index_chunks} chunks of {header.index_documents} documents), "
        f"searched through SearchService at document level as `biohybrid evaluate` does: "
        f"{header.depth} documents per query from {header.candidate_depth} chunks per component",
    ]
    lines = [
        *report_opening(f"Fusion stability across paraphrases ({header.test_set_id})", header.run, opening),
        "## Pairs",
        "",
        f"Rule: {header.rule.describe()}.",
        "",
        f"- {len(pair_set.pairs)} pairs kept of {pair_set.uncapped} before the cap, from "
        f"{len(set(pair_set.groups))} relevance sets; {len(pair_set.query_ids)} distinct queries searched.",
        f"- By wording (Jaccard of lower-cased word sets, threshold {NEAR_DUPLICATE_OVERLAP}): "
        f"{counts[STRATA[0]]} near-duplicate edits (≥ {NEAR_DUPLICATE_OVERLAP}: negations, changed numbers "
        f"or entities), {counts[STRATA[1]]} different wordings (< {NEAR_DUPLICATE_OVERLAP}).",
        "- A claim and its negation cite the same evidence: for retrieval they are one information need, "
        "so they pair up.",
        "",
        "Examples (first pairs of each stratum in id order):",
        "",
        *example_lines(pair_set),
        "",
        "## Stability by configuration",
        "",
        "Means over pairs. ↑: higher is more stable; ↓: lower is more stable. Variance share: mean "
        "within-pair nDCG@10 variance over the nDCG@10 variance across all paired queries (about 0: "
        "the wording barely matters; about 1: it matters as much as which need is asked). Mean nDCG@10 "
        "over the distinct paired queries.",
        "",
        *stability_table(results),
        "",
        f"![stability by configuration]({plot_name})",
        "",
        "## By wording",
        "",
        *stratum_table(results, pair_set),
        "",
    ]
    if comparisons is not None:
        treatment, baseline = (next(r for r in results if r.name == name) for name in COMPARED)
        lines += [
            f"## {COMPARED[0]} vs {COMPARED[1]}, paired",
            "",
            f"Two-sided paired randomization test (control_plane.measures.significance, "
            f"{header.permutations} sign patterns, seed {header.seed}) on the per-pair values, RRF minus "
            "min-max. Pairs of one relevance set share queries, so the test is also run with each "
            'relevance set\'s mean as one independent unit. "Stabler" names a configuration only '
            f"when both p-values are below {header.alpha}.",
            "",
            *comparison_table(comparisons, treatment, baseline, header.alpha),
            "",
        ]
    else:
        lines += [f"No paired comparison: run both {' and '.join(COMPARED)} for it.", ""]
    lines += [
        "## Measures",
        "",
        "- Jaccard@10: |A ∩ B| / |A ∪ B| of the two queries' top-10 documents.",
        "- RBO@10: rank-biased overlap, extrapolated form for lists evaluated to the same depth "
        "(Webber, Moffat, Zobel 2010, eq. 32), p = 0.9, depth 10: (X_10/10)·p^10 + ((1−p)/p)·Σ_d "
        "(X_d/d)·p^d with X_d the overlap of the top d; 1 for identical top-10 lists, 0 for disjoint.",
        "- Within-pair nDCG@10 variance: mean over pairs of (m1 − m2)² / 2, the unbiased sample variance "
        'of nDCG@10 across the two wordings of one need (the spec\'s "RRF variance" for hybrid-rrf).',
        "- Mean |ΔnDCG@10|: mean over pairs of |m1 − m2|.",
        "",
        "A configuration that fails both wordings (nDCG@10 = 0 twice) counts as stable on the metric "
        "measures: read them beside mean nDCG@10 and the overlap measures.",
        "",
    ]
    return "\n".join(lines)
