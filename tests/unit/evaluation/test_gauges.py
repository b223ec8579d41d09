"""Evaluation gauges and the regression rule."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry

from control_plane.evaluation.gauges import EvaluationGauges, regression


@pytest.mark.parametrize(
    ("current", "baseline", "fired"),
    [
        (0.30, 0.33, True),  # 0.03 below, margin 0.02
        (0.32, 0.33, False),  # 0.01 below
        (0.40, 0.33, False),  # better
        (0.10, None, False),  # nothing to compare with
    ],
)
def test_regression_is_a_drop_larger_than_the_margin(
    current: float, baseline: float | None, fired: bool
) -> None:
    assert regression(current, baseline, 0.02) is fired


def test_gauges_carry_metric_configuration_and_dataset() -> None:
    registry = CollectorRegistry()
    gauges = EvaluationGauges(registry)
    gauges.record(
        "hybrid-rrf", "nfcorpus/dev", {"recall@10": 0.3, "ndcg@10": 0.31}, {"recall@10": 0.35}, 1e9, True
    )
    gauges.record("bm25", "nfcorpus/dev", {"recall@10": 0.2}, None, 2e9, None)

    def value(name: str, **labels: str) -> float | None:
        return registry.get_sample_value(name, labels)

    assert (
        value("biohybrid_eval_metric", metric="ndcg@10", configuration="hybrid-rrf", dataset="nfcorpus/dev")
        == 0.31
    )
    assert (
        value(
            "biohybrid_eval_baseline_metric",
            metric="recall@10",
            configuration="hybrid-rrf",
            dataset="nfcorpus/dev",
        )
        == 0.35
    )
    assert (
        value(
            "biohybrid_eval_recall_drop_alert",
            metric="recall@10",
            configuration="hybrid-rrf",
            dataset="nfcorpus/dev",
        )
        == 1.0
    )
    assert (
        value(
            "biohybrid_eval_recall_drop_alert",
            metric="recall@10",
            configuration="bm25",
            dataset="nfcorpus/dev",
        )
        is None
    )
    assert (
        value("biohybrid_eval_last_run_timestamp_seconds", configuration="bm25", dataset="nfcorpus/dev")
        == 2e9
    )


def test_a_run_kept_out_of_the_store_moves_no_gauge() -> None:
    # Issue 73: POST /v1/evaluate with store false set the gauges and cleared the alert of stored runs.
    from datetime import UTC, datetime

    from control_plane.evaluation.configurations import EvalConfiguration
    from control_plane.evaluation.runner import ConfigurationResult, SuiteResult
    from control_plane.evaluation.settings import load_evaluation_settings
    from control_plane.evaluation.store import RunContext
    from control_plane.evaluation.suite import record

    registry = CollectorRegistry()
    gauges = EvaluationGauges(registry)
    gauges.alert.labels(gauges.alert_metric, "hybrid-rrf", "nfcorpus/dev").set(1.0)  # a stored run's alert
    result = ConfigurationResult(
        EvalConfiguration(name="hybrid-rrf"), {}, {}, {"ndcg@10": 0.1}, {}, {}, {}, {}, {}
    )
    now = datetime.now(UTC)
    suite = SuiteResult("r1", "nfcorpus/dev", "nfcorpus", ("ndcg@10",), 1, {}, None, (result,), now, now)
    context = RunContext("chunks-x", "t", {}, {}, "host", "test")
    recorded = record(suite, None, context, gauges, load_evaluation_settings(environ={}))
    assert [run.alert for run in recorded] == [False]
    assert (
        registry.get_sample_value(
            "biohybrid_eval_metric",
            {"metric": "ndcg@10", "configuration": "hybrid-rrf", "dataset": "nfcorpus/dev"},
        )
        is None
    )
    assert (
        registry.get_sample_value(
            "biohybrid_eval_recall_drop_alert",
            {"metric": gauges.alert_metric, "configuration": "hybrid-rrf", "dataset": "nfcorpus/dev"},
        )
        == 1.0
    )
