"""Prometheus gauges of the latest evaluation: each metric by configuration and dataset, the stored
baseline's value, and an alert when the alert metric (Recall@10 by default) has fallen more than a
margin below that baseline. Registered on the caller's registry (the API app has its own)."""

from __future__ import annotations

from collections.abc import Mapping

from prometheus_client import CollectorRegistry, Gauge


def regression(current: float, baseline: float | None, margin: float) -> bool:
    """True when ``current`` is more than ``margin`` (absolute) below ``baseline``; no baseline, no alert."""
    return baseline is not None and baseline - current > margin


class EvaluationGauges:
    def __init__(self, registry: CollectorRegistry, alert_metric: str = "recall@10") -> None:
        self.alert_metric = alert_metric
        labels = ["metric", "configuration", "dataset"]
        self.metric = Gauge(
            "biohybrid_eval_metric",
            "Latest evaluation value of a metric, by configuration and dataset (test set id)",
            labels,
            registry=registry,
        )
        self.baseline = Gauge(
            "biohybrid_eval_baseline_metric",
            "The stored baseline run's value of a metric, by configuration and dataset",
            labels,
            registry=registry,
        )
        self.alert = Gauge(
            "biohybrid_eval_recall_drop_alert",
            "1 when the alert metric fell more than the configured margin below the stored baseline",
            labels,
            registry=registry,
        )
        self.last_run = Gauge(
            "biohybrid_eval_last_run_timestamp_seconds",
            "When the latest evaluation of a configuration and dataset started (Unix time)",
            ["configuration", "dataset"],
            registry=registry,
        )

    def record(
        self,
        configuration: str,
        dataset: str,
        metrics: Mapping[str, float],
        baseline: Mapping[str, float] | None,
        started_at: float,
        alert: bool | None,
    ) -> None:
        """Set the gauges for one configuration's run (``alert`` None: the alert metric was not measured)."""
        for name, value in metrics.items():
            self.metric.labels(name, configuration, dataset).set(value)
        for name, value in (baseline or {}).items():
            self.baseline.labels(name, configuration, dataset).set(value)
        self.last_run.labels(configuration, dataset).set(started_at)
        if alert is not None:
            self.alert.labels(self.alert_metric, configuration, dataset).set(1.0 if alert else 0.0)
