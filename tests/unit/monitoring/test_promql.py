from __future__ import annotations

import pytest

from control_plane.monitoring.promql import family_name, metric_names


def test_names_outside_matchers_ranges_and_groupings() -> None:
    expr = (
        'histogram_quantile(0.95, sum by (le, component) (rate(a_seconds_bucket{mode="h", le!="x"}[5m])))'
        " / on(job) group_left sum without (instance) (b_total offset 1h)"
    )
    assert metric_names(expr) == {"a_seconds_bucket", "b_total"}


def test_string_literals_and_functions_are_not_metrics() -> None:
    expr = 'label_replace(c_metric{metric="ndcg@10"}, "base", "$1", "configuration", "(.*)") or vector(0)'
    assert metric_names(expr) == {"c_metric"}


def test_set_operators_and_bool_are_keywords() -> None:
    assert metric_names("x > bool 1 and y unless z") == {"x", "y", "z"}


@pytest.mark.parametrize(
    ("series", "family"),
    [
        ("a_seconds_bucket", "a_seconds"),
        ("a_seconds_count", "a_seconds"),
        ("a_seconds_sum", "a_seconds"),
        ("b_total", "b"),
        ("c_metric", "c_metric"),
    ],
)
def test_family_name(series: str, family: str) -> None:
    assert family_name(series) == family
