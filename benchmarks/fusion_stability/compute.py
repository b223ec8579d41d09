"""Measuring fusion stability: pair the queries, search only those through SearchService, and reduce the
runs to per-pair stability values and the paired RRF vs min-max test (the figures the report shows)."""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from opensearchpy import OpenSearch

from control_plane.evaluation.runner import ConfigurationResult, SuiteResult, run_suite
from control_plane.evaluation.service_retriever import SearchServiceRetriever
from control_plane.evaluation.suite import SuitePlan
from control_plane.measures.significance import PairedTest, paired_randomization_test
from control_plane.measures.stability import (
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

METRIC = "ndcg@10"
COMPARED = ("hybrid-rrf", "hybrid-minmax")  # treatment, baseline of the paired test
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


# -- pairs and figures (pure) --------------------------------------------------------------------------


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


# -- searching -----------------------------------------------------------------------------------------


def paired_plan(plan: SuitePlan, pair_set: PairSet) -> SuitePlan:
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


def index_size(client: OpenSearch, index: str) -> tuple[int, int]:
    """The index's chunk count and (approximate) distinct document count."""
    chunks = int(client.count(index=index)["count"])
    body = {
        "size": 0,
        "aggs": {"documents": {"cardinality": {"field": "doc_id", "precision_threshold": 40000}}},
    }
    documents = int(client.search(index=index, body=body)["aggregations"]["documents"]["value"])
    return chunks, documents


def search(plan: SuitePlan, retriever: SearchServiceRetriever, depth: int, quiet: bool) -> SuiteResult:
    """Every configuration over the plan's queries, with a progress bar on stderr unless ``quiet``."""
    from control_plane.progress import progress_bar

    total = len(plan.configurations) * len(plan.evaluation_set.queries)
    with progress_bar(total=total, unit="query", disable=quiet, file=sys.stderr) as bar:

        def progress(configuration: str, done: int, count: int) -> None:
            bar.set_description(configuration, refresh=False)
            bar.update(1)

        return run_suite(
            retriever, plan.configurations, plan.evaluation_set, plan.metrics, depth=depth, progress=progress
        )
