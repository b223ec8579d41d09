"""Fusion stability across paraphrases: how much RRF and min-max rankings change with the wording of
one information need, beside the single components, as markdown with one plot.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m control_plane.benchmarks.fusion_stability \\
        --test-set scifact/train --configurations hybrid-rrf,hybrid-minmax,bm25,splade,dense \\
        --out model_artifacts/reports/fusion-stability.md

Pairs come from the test set's qrels (control_plane.measures.stability: identical relevant sets,
different words, at most --max-pairs-per-set per set). Only the queries in pairs are searched, each
once per configuration, through the evaluation's runner and SearchService retriever (the path of
`biohybrid evaluate`: document level, the evaluation settings' depth, candidate depth, budgets and
dataset -> index map). Nothing is stored in eval-runs: this is a measurement on a query subset.
Per configuration it reports top-10 Jaccard, RBO@10, the within-pair nDCG@10 variance and mean
|ΔnDCG@10|, by wording (near-duplicate edits vs different wordings), and a paired randomization test
of RRF against min-max on the per-pair values, with pairs and with relevance sets as the units.
Measurement only, on a train split: nothing is tuned on it.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.config.settings import ENV_CONFIG_FILE, ConfigError, load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.evaluation.runner import ConfigurationResult, EvaluationError, SuiteResult, run_suite
from control_plane.evaluation.service_retriever import SearchServiceRetriever, evaluation_service
from control_plane.evaluation.suite import SuitePlan, plan_suite
from control_plane.measures.significance import PairedTest, paired_randomization_test
from control_plane.measures.stability import (
    HIGHER_IS_STABLER,
    MEASURES,
    NEAR_DUPLICATE_OVERLAP,
    Pair,
    PairRule,
    StabilityParameters,
    group_means,
    pair_group,
    paraphrase_pairs,
    per_pair,
    within_pair_variance_share,
    word_overlap,
)
from control_plane.reports.figures import new_figure, save_figure
from control_plane.reports.markdown import markdown_table

METRIC = "ndcg@10"
DEFAULT_CONFIGURATIONS = "hybrid-rrf,hybrid-minmax,bm25,splade,dense"
COMPARED = ("hybrid-rrf", "hybrid-minmax")  # treatment, baseline of the paired test
EXAMPLES_PER_STRATUM = 3
LABELS: dict[str, str] = {
    "topk_jaccard": "Jaccard@10 ↑",
    "rbo": "RBO@10 (p=0.9) ↑",
    "within_pair_metric_variance": "within-pair nDCG@10 variance ↓",
    "mean_abs_metric_difference": "mean abs ΔnDCG@10 ↓",
}
STRATA = ("near-duplicate", "different wording")


@dataclass(frozen=True)
class PairSet:
    """The pairs, the relevance set each shares and its wording stratum, with the counts behind them."""

    pairs: list[Pair]
    groups: list[str]
    strata: list[str]
    overlaps: list[float]
    uncapped: int
    texts: Mapping[str, str]

    @property
    def query_ids(self) -> set[str]:
        return {query_id for pair in self.pairs for query_id in pair}


@dataclass(frozen=True)
class ConfigurationStability:
    name: str
    values: dict[str, list[float]]  # measure -> per-pair values, in pair order
    means: dict[str, float]
    by_stratum: dict[str, dict[str, float]]  # stratum -> measure -> mean
    variance_share: float
    mean_metric: float  # over the distinct paired queries
    degraded: dict[str, int]


@dataclass(frozen=True)
class Comparison:
    measure: str
    by_pair: PairedTest
    by_set: PairedTest


# -- pure pieces ---------------------------------------------------------------------------------------


def build_pairs(qrels: Mapping[str, Mapping[str, int]], texts: Mapping[str, str], rule: PairRule) -> PairSet:
    pairs = paraphrase_pairs(qrels, texts, rule)
    overlaps = [word_overlap(texts[a], texts[b]) for a, b in pairs]
    return PairSet(
        pairs=pairs,
        groups=[pair_group(qrels, pair) for pair in pairs],
        strata=[STRATA[0] if o >= NEAR_DUPLICATE_OVERLAP else STRATA[1] for o in overlaps],
        overlaps=overlaps,
        uncapped=len(paraphrase_pairs(qrels, texts, replace(rule, max_pairs_per_set=10**9))),
        texts=texts,
    )


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else float("nan")


def measure_configuration(result: ConfigurationResult, pair_set: PairSet) -> ConfigurationStability:
    metric_values = {query_id: scores[METRIC] for query_id, scores in result.per_query.items()}
    values = per_pair(pair_set.pairs, result.run, metric_values, tuple(MEASURES), StabilityParameters())
    by_stratum = {
        stratum: {
            name: _mean([v for v, s in zip(series, pair_set.strata, strict=True) if s == stratum])
            for name, series in values.items()
        }
        for stratum in STRATA
    }
    return ConfigurationStability(
        name=result.name,
        values=values,
        means={name: _mean(series) for name, series in values.items()},
        by_stratum=by_stratum,
        variance_share=within_pair_variance_share(pair_set.pairs, metric_values),
        mean_metric=_mean([metric_values[q] for q in sorted(pair_set.query_ids)]),
        degraded=dict(result.degraded_queries),
    )


def compare(
    treatment: ConfigurationStability,
    baseline: ConfigurationStability,
    groups: Sequence[str],
    permutations: int,
    seed: int,
) -> list[Comparison]:
    """Treatment minus baseline per measure, tested over pairs and over relevance sets."""
    comparisons = []
    for name in MEASURES:
        by_set_treatment = group_means(treatment.values[name], groups)
        by_set_baseline = group_means(baseline.values[name], groups)
        comparisons.append(
            Comparison(
                measure=name,
                by_pair=paired_randomization_test(
                    baseline.values[name], treatment.values[name], permutations, seed
                ),
                by_set=paired_randomization_test(
                    list(by_set_baseline.values()), list(by_set_treatment.values()), permutations, seed
                ),
            )
        )
    return comparisons


# -- report --------------------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Header:
    command: str
    machine: str
    started_at: datetime
    seconds: float
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


def render_report(
    header: Header,
    pair_set: PairSet,
    results: Sequence[ConfigurationStability],
    comparisons: Sequence[Comparison] | None,
    plot_name: str,
) -> str:
    counts = {stratum: pair_set.strata.count(stratum) for stratum in STRATA}
    lines = [
        f"# Fusion stability across paraphrases ({header.test_set_id})",
        "",
        f"- Command: `{header.command}`",
        f"- Machine: {header.machine}",
        f"- Date: {header.started_at:%Y-%m-%d %H:%M:%S} UTC; {header.seconds:.0f} s for "
        f"{len(results)} configurations x {len(pair_set.query_ids)} queries",
        f"- Index `{header.index}` ({header.index_chunks} chunks of {header.index_documents} documents), "
        f"searched through SearchService at document level as `biohybrid evaluate` does: "
        f"{header.depth} documents per query from {header.candidate_depth} chunks per component",
        "",
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


def plot(results: Sequence[ConfigurationStability], path: Path) -> None:
    """Three panels: overlap means, metric-spread means, and the ECDF of per-pair RBO@10."""
    figure = new_figure(15, 4.6)
    names = [r.name for r in results]
    positions = np.arange(len(names))
    panels = (
        ("overlap (higher = more stable)", ("topk_jaccard", "rbo")),
        (
            "nDCG@10 spread (lower = more stable)",
            ("within_pair_metric_variance", "mean_abs_metric_difference"),
        ),
    )
    for index, (title, measures) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, 3, index)
        for offset, name in enumerate(measures):
            values = [r.means[name] for r in results]
            axes.bar(positions + (offset - 0.5) * 0.4, values, 0.4, label=LABELS[name])
        axes.set_xticks(positions, names, rotation=30, ha="right")
        axes.set_ylim(0, 1)
        axes.set_title(title)
        axes.legend(fontsize="small")
    axes = figure.add_subplot(1, 3, 3)
    for r in results:
        ordered = np.sort(np.asarray(r.values["rbo"]))
        axes.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", label=r.name)
    axes.set_xlim(0, 1)
    axes.set_xlabel("RBO@10 of a pair")
    axes.set_ylabel("share of pairs at or below")
    axes.set_title("per-pair RBO@10 (curve further right = more stable)")
    axes.legend(fontsize="small")
    save_figure(figure, path)


# -- the run ---------------------------------------------------------------------------------------------


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", default="scifact/train", help="test set id (train/dev splits)")
    parser.add_argument("--configurations", default=DEFAULT_CONFIGURATIONS, help="comma-separated names")
    parser.add_argument("--out", type=Path, required=True, help="markdown report; the PNG goes beside it")
    parser.add_argument("--max-pairs-per-set", type=int, default=PairRule().max_pairs_per_set)
    parser.add_argument("--eval-config", help="evaluation settings file (default: packaged evaluation.yaml)")
    parser.add_argument("--tenant", help="tenant to search as (default: the evaluation settings')")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def _command(argv: Sequence[str]) -> str:
    prefix = f"{ENV_CONFIG_FILE}={os.environ[ENV_CONFIG_FILE]} " if ENV_CONFIG_FILE in os.environ else ""
    return prefix + shlex.join(["python", "-m", "control_plane.benchmarks.fusion_stability", *argv])


def _paired_plan(plan: SuitePlan, pair_set: PairSet) -> SuitePlan:
    """The plan with only the queries in pairs (in test-set order)."""
    chosen = pair_set.query_ids
    evaluation_set = plan.evaluation_set
    queries = tuple(q for q in evaluation_set.queries if q.query_id in chosen)
    missing = sorted(chosen - {q.query_id for q in queries})
    if missing:
        raise ValueError(
            f"paired queries {missing[:5]} are not judged queries of {evaluation_set.test_set_id}"
        )
    return replace(
        plan,
        evaluation_set=replace(
            evaluation_set,
            test_set_id=f"{evaluation_set.test_set_id}[paired]",
            queries=queries,
            qrels={q.query_id: evaluation_set.qrels[q.query_id] for q in queries},
            query_types={q.query_id: evaluation_set.query_types[q.query_id] for q in queries},
        ),
    )


def _index_size(client: OpenSearch, index: str) -> tuple[int, int]:
    chunks = int(client.count(index=index)["count"])
    body = {
        "size": 0,
        "aggs": {"documents": {"cardinality": {"field": "doc_id", "precision_threshold": 40000}}},
    }
    documents = int(client.search(index=index, body=body)["aggregations"]["documents"]["value"])
    return chunks, documents


def _search(plan: SuitePlan, retriever: SearchServiceRetriever, depth: int, quiet: bool) -> SuiteResult:
    from tqdm import tqdm

    total = len(plan.configurations) * len(plan.evaluation_set.queries)
    with tqdm(total=total, unit="query", disable=quiet, file=sys.stderr) as bar:

        def progress(configuration: str, done: int, count: int) -> None:
            bar.set_description(configuration, refresh=False)
            bar.update(1)

        return run_suite(
            retriever, plan.configurations, plan.evaluation_set, plan.metrics, depth=depth, progress=progress
        )


def main(argv: list[str] | None = None) -> int:
    from control_plane.evaluation.settings import load_evaluation_settings
    from control_plane.testsets.catalog import load_test_set

    args = _arguments(argv)
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    rule = PairRule(max_pairs_per_set=args.max_pairs_per_set)
    try:
        settings = load_settings()
        evaluation = load_evaluation_settings(args.eval_config)
        names = [name.strip() for name in args.configurations.split(",") if name.strip()]
        plan = plan_suite(evaluation, args.test_set, names, [METRIC])
        index = evaluation.index_for(plan.evaluation_set.dataset)
        test_set = load_test_set(args.test_set)
        texts = {q.query_id: q.text for q in test_set.queries()}
        pair_set = build_pairs(test_set.qrels(), texts, rule)
        if not pair_set.pairs:
            raise ValueError(f"no paraphrase pairs in {args.test_set} under the rule: {rule.describe()}")
        plan = _paired_plan(plan, pair_set)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    client = make_client(settings.opensearch)
    service = evaluation_service(client, settings, evaluation.timeouts)
    retriever = SearchServiceRetriever(
        service, args.tenant or evaluation.tenant_id, index, evaluation.candidate_depth
    )
    try:
        suite = _search(plan, retriever, evaluation.depth, args.no_progress)
    except EvaluationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    results = [measure_configuration(r, pair_set) for r in suite.results]
    by_name = {r.name: r for r in results}
    comparisons = (
        compare(
            by_name[COMPARED[0]],
            by_name[COMPARED[1]],
            pair_set.groups,
            evaluation.significance.permutations,
            evaluation.significance.seed,
        )
        if all(name in by_name for name in COMPARED)
        else None
    )
    chunks, documents = _index_size(client, index)
    header = Header(
        command=_command(argv if argv is not None else sys.argv[1:]),
        machine=describe_machine(f"OpenSearch {client.info()['version']['number']}"),
        started_at=started_at,
        seconds=time.perf_counter() - started,
        test_set_id=args.test_set,
        index=index,
        index_chunks=chunks,
        index_documents=documents,
        depth=evaluation.depth,
        candidate_depth=evaluation.candidate_depth,
        rule=rule,
        permutations=evaluation.significance.permutations,
        seed=evaluation.significance.seed,
        alpha=evaluation.significance.alpha,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_path = args.out.with_suffix(".png")
    plot(results, plot_path)
    args.out.write_text(render_report(header, pair_set, results, comparisons, plot_path.name) + "\n", "utf-8")
    for r in results:
        figures = "  ".join(f"{name} {r.means[name]:.4f}" for name in MEASURES)
        print(f"{r.name:16} {figures}  mean {METRIC} {r.mean_metric:.4f}")
    print(f"report: {args.out}, plot: {plot_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
