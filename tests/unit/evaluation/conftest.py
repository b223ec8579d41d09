"""A hand-made suite result (two configurations, three queries) for report and store tests."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.evaluation.runner import ConfigurationResult, SuiteResult
from control_plane.measures.significance import PairedTest


def _result(
    configuration: EvalConfiguration, ndcg: float, by_type: dict[str, float], p_value: float | None
) -> ConfigurationResult:
    shares = {name: 1.0 for name in configuration.components}
    return ConfigurationResult(
        configuration=configuration,
        run={},
        per_query={},
        metrics={"ndcg@10": ndcg, "recall@100": ndcg * 2},
        by_query_type={t: {"ndcg@10": v, "recall@100": v} for t, v in by_type.items()},
        component_share=shares,
        exclusive_share={name: 0.0 for name in configuration.components},
        latency_ms={"mean": 100.0, "p50": 90.0, "p95": 250.0},
        degraded_queries={"dense_timeout": 1, "query_failed": 1} if configuration.is_hybrid else {},
        degraded_detail={"q1": ("dense_timeout",), "q3": ("query_failed: ConnectionError: node gone",)}
        if configuration.is_hybrid
        else {},
        significance={}
        if p_value is None
        else {
            "ndcg@10": PairedTest(0.05, p_value, 3, True),
            "recall@100": PairedTest(0.1, 0.5, 3, True),
        },
        top10_overlap={"bm25": 0.6} if configuration.is_hybrid else {},
    )


SUITE = SuiteResult(
    run_id="20250101T000000Z-abcdef12",
    test_set_id="nfcorpus/dev[:3]",
    dataset="nfcorpus",
    metrics=("ndcg@10", "recall@100"),
    query_count=3,
    query_type_counts={"exact_term": 2, "paraphrase": 1},
    baseline="bm25",
    results=(
        _result(
            EvalConfiguration(name="bm25", components=("bm25",)),
            0.25,
            {"exact_term": 0.3, "paraphrase": 0.15},
            None,
        ),
        _result(EvalConfiguration(name="hybrid-rrf"), 0.3, {"exact_term": 0.35, "paraphrase": 0.2}, 0.01),
    ),
    started_at=datetime(2025, 1, 1, tzinfo=UTC),
    finished_at=datetime(2025, 1, 1, 0, 1, 5, tzinfo=UTC),
)


@pytest.fixture
def toy_suite() -> SuiteResult:
    return SUITE
