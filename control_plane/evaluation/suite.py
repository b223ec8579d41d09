"""One evaluation from request to record, shared by POST /v1/evaluate, the CLI and the scheduler:
resolve what to run, run it through a retriever, store it and set the gauges."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from control_plane.clinical.query_types import classify_query
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.gauges import EvaluationGauges, regression
from control_plane.evaluation.query_sets import Classifier, EvaluationSet, load_evaluation_set
from control_plane.evaluation.runner import (
    ProgressCallback,
    Retriever,
    SignificanceOptions,
    SuiteResult,
    run_suite,
)
from control_plane.evaluation.settings import EvaluationSettings, check_metric_names
from control_plane.evaluation.store import EvalRunStore, RunContext


@dataclass(frozen=True)
class SuitePlan:
    evaluation_set: EvaluationSet
    configurations: list[EvalConfiguration]
    metrics: list[str]
    baseline: EvalConfiguration


@dataclass(frozen=True)
class RecordedRun:
    """A configuration's stored outcome: the baseline it was compared with and whether it alerted."""

    configuration: str
    baseline_metrics: dict[str, float] | None
    baseline_run_id: str | None
    alert: bool


def plan_suite(
    settings: EvaluationSettings,
    test_set_id: str,
    configurations: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    limit: int | None = None,
    classify: Classifier = classify_query,
) -> SuitePlan:
    """Resolve names (the settings' suite and metrics when none are given) and load the queries.

    A partial run's dataset label is ``<test set id>[:N]`` so its numbers never meet a full run's."""
    chosen_metrics = check_metric_names(list(metrics or settings.metrics))
    resolved = settings.resolve(list(configurations or settings.suite))
    evaluation_set = load_evaluation_set(
        test_set_id, settings.stratified_sets, limit=limit, classify=classify
    )
    if limit is not None:
        evaluation_set = EvaluationSet(
            test_set_id=f"{test_set_id}[:{limit}]",
            dataset=evaluation_set.dataset,
            queries=evaluation_set.queries,
            qrels=evaluation_set.qrels,
            query_types=evaluation_set.query_types,
            stratification=evaluation_set.stratification,
        )
    settings.index_for(evaluation_set.dataset)  # fail before searching when no index is configured
    return SuitePlan(
        evaluation_set=evaluation_set,
        configurations=resolved,
        metrics=chosen_metrics,
        baseline=settings.resolve([settings.baseline_configuration])[0],
    )


def execute(
    plan: SuitePlan,
    retriever: Retriever,
    settings: EvaluationSettings,
    progress: ProgressCallback | None = None,
) -> SuiteResult:
    return run_suite(
        retriever,
        plan.configurations,
        plan.evaluation_set,
        plan.metrics,
        depth=settings.depth,
        baseline=plan.baseline,
        significance=SignificanceOptions(settings.significance.permutations, settings.significance.seed),
        progress=progress,
    )


def record(
    suite: SuiteResult,
    store: EvalRunStore | None,
    context: RunContext,
    gauges: EvaluationGauges | None,
    settings: EvaluationSettings,
) -> list[RecordedRun]:
    """Compare each configuration with its stored baseline (read before saving), store the run, set
    the gauges. Without a store nothing is compared (every alert is False) and no gauge moves: a run
    kept out of the record (``store: false``) must not stand in the dashboards for the stored ones, nor
    clear an alert they raised (issue 73)."""
    baselines = {
        result.name: store.baseline(result.name, suite.test_set_id) if store is not None else None
        for result in suite.results
    }
    if store is not None:
        store.save(suite, context)
    recorded = []
    for result in suite.results:
        baseline = baselines[result.name]
        baseline_metrics = baseline.metrics if baseline is not None else None
        current = result.metrics.get(settings.alert.metric)
        alert = current is not None and regression(
            current, (baseline_metrics or {}).get(settings.alert.metric), settings.alert.margin
        )
        if gauges is not None and store is not None:
            # A first run is its own baseline once stored.
            gauges.record(
                result.name,
                suite.test_set_id,
                result.metrics,
                baseline_metrics or result.metrics,
                suite.started_at.timestamp(),
                alert if current is not None else None,
            )
        recorded.append(
            RecordedRun(
                configuration=result.name,
                baseline_metrics=baseline_metrics,
                baseline_run_id=baseline.run_id if baseline is not None else None,
                alert=alert,
            )
        )
    return recorded
