"""Run configurations over an evaluation set and measure them: runs, metrics, per-query-type means,
component shares of the top 10, and paired significance against the baseline configuration.

The runner sees retrieval only through ``Retriever`` (query + configuration -> ranked documents), so
everything here is pure given a retriever; the one that searches OpenSearch through SearchService is
``control_plane.evaluation.service_retriever``.

Component share of the top 10: over all queries, the top-10 documents of a configuration are pooled;
a component's share is the fraction of them to which that component gave a (non-null) score, i.e.
which it retrieved within its own candidate list. Shares of a hybrid can sum to more than 1 (a
document found by several components counts for each); ``exclusive_share`` counts documents that only
that component found. ``top10_overlap`` is the other view: the fraction of the pooled top-10 documents
that were also in the component's own top 10, when the suite ran that component alone (the
configuration named after it, e.g. ``bm25``).

The service's order is the ranking: a retriever's scores are made strictly decreasing in that order
(a score equal to or above the one before is set one float step below it) so that ordering by score,
which is what trec_eval and the metrics do, gives back exactly the service's order.

A query whose search fails (an exception, not a dropped component) is tried once more; if it fails
again it is recorded as degraded (reason ``query_failed``, the error in ``degraded_detail``) with no
documents, so it scores 0 and the run goes on. Only a configuration whose every query failed stops the
run: there is nothing to measure.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Protocol

from control_plane.errors import BiohybridError
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.query_sets import EvaluationSet
from control_plane.formulas.percentile import percentile
from control_plane.measures.metrics import Run, per_query, rank_documents
from control_plane.measures.significance import PairedTest, paired_test_by_query
from control_plane.query.components import COMPONENT_ORDER

SHARE_CUTOFF = 10


@dataclass(frozen=True)
class RetrievedDocument:
    doc_id: str
    score: float
    component_scores: Mapping[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Retrieval:
    """One query's ranked documents, and why the search was degraded if it was (e.g. splade_timeout)."""

    documents: Sequence[RetrievedDocument]
    degraded: Sequence[str] = ()


class Retriever(Protocol):
    def retrieve(self, query: str, configuration: EvalConfiguration, depth: int) -> Retrieval:
        """The top ``depth`` documents for ``query`` under ``configuration``, best first."""
        ...


ProgressCallback = Callable[[str, int, int], None]
"""(configuration name, queries done, queries in the set), called after every query."""


class EvaluationError(BiohybridError, RuntimeError):
    """A search failed during a run; the message names the configuration and the query."""


@dataclass(frozen=True)
class SignificanceOptions:
    permutations: int = 10000
    seed: int = 0


@dataclass(frozen=True)
class ConfigurationResult:
    configuration: EvalConfiguration
    run: dict[str, dict[str, float]]  # query id -> doc id -> score
    per_query: dict[str, dict[str, float]]  # query id -> metric -> value
    metrics: dict[str, float]
    by_query_type: dict[str, dict[str, float]]  # query type -> metric -> mean
    component_share: dict[str, float]
    exclusive_share: dict[str, float]
    latency_ms: dict[str, float]  # mean, p50, p95 over queries
    degraded_queries: dict[str, int]  # reason -> queries affected
    # query id -> why it was degraded (dropped components, or the error of a search that failed twice)
    degraded_detail: dict[str, tuple[str, ...]] = field(default_factory=dict)
    significance: dict[str, PairedTest] = field(default_factory=dict)  # metric -> test vs baseline
    top10_overlap: dict[str, float] = field(default_factory=dict)  # component -> share of its top 10

    @property
    def name(self) -> str:
        return self.configuration.name


@dataclass(frozen=True)
class SuiteResult:
    run_id: str
    test_set_id: str
    dataset: str
    metrics: tuple[str, ...]
    query_count: int
    query_type_counts: dict[str, int]
    baseline: str | None
    results: tuple[ConfigurationResult, ...]
    started_at: datetime
    finished_at: datetime

    def result(self, name: str) -> ConfigurationResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(f"no configuration {name!r} in this run ({', '.join(r.name for r in self.results)})")


def mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else 0.0


def means_by_query_type(
    scores: Mapping[str, Mapping[str, float]], query_types: Mapping[str, str], metrics: Sequence[str]
) -> dict[str, dict[str, float]]:
    """query type -> metric -> mean over the scored queries of that type."""
    grouped: dict[str, list[str]] = {}
    for query_id in scores:
        grouped.setdefault(query_types[query_id], []).append(query_id)
    return {
        query_type: {name: mean([scores[q][name] for q in query_ids]) for name in metrics}
        for query_type, query_ids in sorted(grouped.items())
    }


def component_shares(
    top_documents: Sequence[Sequence[RetrievedDocument]], components: Sequence[str]
) -> tuple[dict[str, float], dict[str, float]]:
    """(share, exclusive share) per component over the pooled top documents (see the module doc)."""
    pooled = [doc for documents in top_documents for doc in documents]
    if not pooled:
        return dict.fromkeys(components, 0.0), dict.fromkeys(components, 0.0)
    found = {name: 0 for name in components}
    exclusive = {name: 0 for name in components}
    for doc in pooled:
        finders = [name for name in components if doc.component_scores.get(name) is not None]
        for name in finders:
            found[name] += 1
        if len(finders) == 1:
            exclusive[finders[0]] += 1
    return (
        {name: found[name] / len(pooled) for name in components},
        {name: exclusive[name] / len(pooled) for name in components},
    )


def strictly_decreasing(documents: Sequence[RetrievedDocument]) -> dict[str, float]:
    """doc id -> score, scores nudged down (one float step at a time) where they do not decrease."""
    scores: dict[str, float] = {}
    previous = math.inf
    for doc in documents:
        score = float(doc.score)
        if score >= previous:
            score = math.nextafter(previous, -math.inf)
        scores[doc.doc_id] = score
        previous = score
    return scores


def top_overlap(run: Run, reference: Run, k: int = SHARE_CUTOFF) -> float:
    """Pooled over queries: |top k of run ∩ top k of reference| / |top k of run|."""
    shared = total = 0
    for query_id, scores in run.items():
        top = rank_documents(scores)[:k]
        shared += len(set(top) & set(rank_documents(reference.get(query_id, {}))[:k]))
        total += len(top)
    return shared / total if total else 0.0


QUERY_FAILED = "query_failed"
RETRY_PAUSE_S = 0.5


def _retrieve_with_retry(
    retriever: Retriever, query: str, configuration: EvalConfiguration, depth: int, retries: int
) -> tuple[Retrieval, str | None]:
    """The retrieval, after up to ``retries`` more tries when the search raises; when every try failed,
    an empty retrieval marked ``query_failed`` and the last error."""
    error = ""
    for attempt in range(retries + 1):
        try:
            return retriever.retrieve(query, configuration, depth), None
        except Exception as exc:  # any failure of one query is recorded, not fatal to the run
            error = f"{type(exc).__name__}: {str(exc)[:300]}"
            if attempt < retries:
                time.sleep(RETRY_PAUSE_S)
    return Retrieval(documents=(), degraded=(QUERY_FAILED,)), error


def _search_all(
    retriever: Retriever,
    configuration: EvalConfiguration,
    evaluation_set: EvaluationSet,
    depth: int,
    progress: ProgressCallback | None,
    retries: int = 1,
) -> tuple[dict[str, list[RetrievedDocument]], list[float], dict[str, int], dict[str, tuple[str, ...]]]:
    documents: dict[str, list[RetrievedDocument]] = {}
    latencies: list[float] = []
    degraded: dict[str, int] = {}
    detail: dict[str, tuple[str, ...]] = {}
    errors: list[str] = []
    total = len(evaluation_set.queries)
    for done, query in enumerate(evaluation_set.queries, start=1):
        started = time.perf_counter()
        retrieval, error = _retrieve_with_retry(retriever, query.text, configuration, depth, retries)
        if error is None:
            latencies.append((time.perf_counter() - started) * 1000)
        else:
            errors.append(error)
        reasons = tuple(sorted(set(retrieval.degraded)))
        for reason in reasons:
            degraded[reason] = degraded.get(reason, 0) + 1
        if reasons:
            detail[query.query_id] = tuple(
                f"{QUERY_FAILED}: {error}" if r == QUERY_FAILED else r for r in reasons
            )
        documents[query.query_id] = _unique(retrieval.documents)[:depth]
        if progress is not None:
            progress(configuration.name, done, total)
    if total and len(errors) == total:
        raise EvaluationError(
            f"configuration {configuration.name!r}: every one of the {total} queries failed "
            f"({retries + 1} tries each); the last error: {errors[-1]}"
        )
    return documents, latencies, degraded, detail


def _unique(documents: Sequence[RetrievedDocument]) -> list[RetrievedDocument]:
    """First occurrence of each document (a retriever answering chunks may repeat a document)."""
    seen: set[str] = set()
    kept: list[RetrievedDocument] = []
    for doc in documents:
        if doc.doc_id not in seen:
            seen.add(doc.doc_id)
            kept.append(doc)
    return kept


def run_configuration(
    retriever: Retriever,
    configuration: EvalConfiguration,
    evaluation_set: EvaluationSet,
    metrics: Sequence[str],
    depth: int,
    progress: ProgressCallback | None = None,
) -> ConfigurationResult:
    """Search every query of the set with one configuration and measure the run."""
    documents, latencies, degraded, detail = _search_all(
        retriever, configuration, evaluation_set, depth, progress
    )
    run = {query_id: strictly_decreasing(docs) for query_id, docs in documents.items()}
    scores = per_query(evaluation_set.qrels, run, metrics)
    share, exclusive = component_shares(
        [docs[:SHARE_CUTOFF] for docs in documents.values()],
        [name for name in COMPONENT_ORDER if name in configuration.components],
    )
    return ConfigurationResult(
        configuration=configuration,
        run=run,
        per_query=scores,
        metrics={name: mean([values[name] for values in scores.values()]) for name in metrics},
        by_query_type=means_by_query_type(scores, evaluation_set.query_types, metrics),
        component_share=share,
        exclusive_share=exclusive,
        latency_ms={
            "mean": mean(latencies),
            "p50": percentile(latencies, 50) if latencies else 0.0,
            "p95": percentile(latencies, 95) if latencies else 0.0,
        },
        degraded_queries=degraded,
        degraded_detail=detail,
    )


def with_significance(
    result: ConfigurationResult,
    baseline: ConfigurationResult,
    metrics: Sequence[str],
    options: SignificanceOptions,
) -> ConfigurationResult:
    """The result with a paired randomization test of each metric against the baseline's."""
    tests = {
        name: paired_test_by_query(
            {q: v[name] for q, v in baseline.per_query.items()},
            {q: v[name] for q, v in result.per_query.items()},
            options.permutations,
            options.seed,
        )
        for name in metrics
    }
    return replace(result, significance=tests)


def with_top_overlaps(results: Sequence[ConfigurationResult]) -> list[ConfigurationResult]:
    """Each hybrid's top-10 overlap with each of its components run alone in the same suite."""
    alone = {r.name: r.run for r in results if r.name in COMPONENT_ORDER}
    return [
        replace(
            r,
            top10_overlap={
                name: top_overlap(r.run, alone[name]) for name in r.configuration.components if name in alone
            },
        )
        if r.configuration.is_hybrid
        else r
        for r in results
    ]


def run_suite(
    retriever: Retriever,
    configurations: Sequence[EvalConfiguration],
    evaluation_set: EvaluationSet,
    metrics: Sequence[str],
    *,
    depth: int = 100,
    baseline: EvalConfiguration | None = None,
    significance: SignificanceOptions | None = None,
    progress: ProgressCallback | None = None,
) -> SuiteResult:
    """Every configuration over the set; the baseline (if given) runs first, added when missing, and
    every other configuration is tested against it."""
    if not evaluation_set.queries:
        raise ValueError(f"test set {evaluation_set.test_set_id!r} has no judged query to evaluate")
    ordered = list(configurations)
    if baseline is not None:
        ordered = [baseline, *(c for c in ordered if c.name != baseline.name)]
    started_at = datetime.now(UTC)
    results = [
        run_configuration(retriever, configuration, evaluation_set, metrics, depth, progress)
        for configuration in ordered
    ]
    results = with_top_overlaps(results)
    if baseline is not None:
        options = significance or SignificanceOptions()
        results = [results[0]] + [with_significance(r, results[0], metrics, options) for r in results[1:]]
    type_counts: dict[str, int] = {}
    for query_id in results[0].per_query:
        query_type = evaluation_set.query_types[query_id]
        type_counts[query_type] = type_counts.get(query_type, 0) + 1
    return SuiteResult(
        run_id=f"{started_at:%Y%m%dT%H%M%SZ}-{uuid.uuid4().hex[:8]}",
        test_set_id=evaluation_set.test_set_id,
        dataset=evaluation_set.dataset,
        metrics=tuple(metrics),
        query_count=len(results[0].per_query),
        query_type_counts=dict(sorted(type_counts.items())),
        baseline=baseline.name if baseline is not None else None,
        results=tuple(results),
        started_at=started_at,
        finished_at=datetime.now(UTC),
    )
