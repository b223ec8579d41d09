"""The eval-runs plot geometry, worked out by hand.

Runs over two days (1 to 3 January), values 0.30..0.45: the value range is [0.30, 0.45] (multiples of
0.05), so x = 40 + 560 x (t - 1 Jan) / 2 days and y = 10 + 200 x (0.45 - v) / 0.15."""

from __future__ import annotations

import pytest

from control_plane.api.console.plots import (
    Tick,
    default_metric,
    known_metrics,
    plot_json,
    plot_runs,
    value_range,
)
from control_plane.evaluation.store import StoredRun

DAY = {1: "2025-01-01T00:00:00+00:00", 2: "2025-01-02T00:00:00+00:00", 3: "2025-01-03T00:00:00+00:00"}


def run(run_id: str, configuration: str, day: int, value: float | None, baseline: bool = False) -> StoredRun:
    metrics = {"ndcg@10": value} if value is not None else {"map": 0.2}
    return StoredRun(
        f"{run_id}:{configuration}", run_id, configuration, "set:dev", DAY[day], metrics, baseline
    )


RUNS = [
    run("r1", "bm25", 1, 0.30, baseline=True),
    run("r1", "hybrid-rrf", 1, 0.41, baseline=True),
    run("r2", "hybrid-rrf", 2, 0.40),
    run("r3", "bm25", 3, 0.34),
    run("r3", "hybrid-rrf", 3, 0.45),
    run("r4", "dense", 2, None),  # has no ndcg@10: left out
]


def test_points_are_placed_by_time_and_value() -> None:
    plot = plot_runs(RUNS, "ndcg@10")
    assert [(s.configuration, s.dataset) for s in plot.series] == [
        ("bm25", "set:dev"),
        ("hybrid-rrf", "set:dev"),
    ]
    bm25, hybrid = plot.series
    assert [(p.run_id, p.x, p.y, p.is_baseline) for p in bm25.points] == [
        ("r1", 40.0, 210.0, True),  # 0.30: the bottom
        ("r3", 600.0, 156.7, False),  # 10 + 200 x 0.11 / 0.15 = 156.67
    ]
    assert [(p.x, p.y) for p in hybrid.points] == [(40.0, 63.3), (320.0, 76.7), (600.0, 10.0)]
    assert hybrid.polyline == "40,63.3 320,76.7 600,10"


def test_the_axes_show_the_range_ends_its_middle_and_the_first_and_last_time() -> None:
    plot = plot_runs(RUNS, "ndcg@10")
    assert plot.y_ticks == (Tick("0.45", 10.0), Tick("0.375", 110.0), Tick("0.3", 210.0))
    assert plot.x_ticks == (Tick("2025-01-01 00:00:00", 40.0), Tick("2025-01-03 00:00:00", 600.0))


def test_the_value_range_is_on_multiples_of_the_step_and_one_step_wide_at_least() -> None:
    assert value_range([0.30, 0.45]) == (0.3, 0.45)  # 0.45 / 0.05 is 8.999..., still 9 steps
    assert value_range([0.312, 0.377]) == (0.3, 0.4)
    assert value_range([0.3]) == (0.25, 0.3)  # one value: widened downwards
    assert value_range([1.0]) == (0.95, 1.0)  # never past 1
    assert value_range([0.0]) == (0.0, 0.05)  # nor below 0
    assert value_range([0.0, 1.0]) == (0.0, 1.0)


def test_runs_at_one_time_sit_in_the_middle() -> None:
    plot = plot_runs([run("r1", "bm25", 1, 0.3)], "ndcg@10")
    [point] = plot.series[0].points
    assert (point.x, point.y) == (320.0, 10.0)  # range [0.25, 0.3]: 0.3 is the top
    assert plot.x_ticks == (Tick("2025-01-01 00:00:00", 320.0),)


def test_a_metric_no_run_has_gives_an_empty_plot() -> None:
    plot = plot_runs(RUNS, "recall@100")
    assert (plot.series, plot.x_ticks, plot.y_ticks) == ((), (), ())


def test_the_answer_carries_each_series_polyline_and_the_plot_area() -> None:
    data = plot_json(plot_runs(RUNS, "ndcg@10"))
    assert [s["polyline"] for s in data["series"]] == ["40,210 600,156.7", "40,63.3 320,76.7 600,10"]
    assert (data["left"], data["top"], data["inner_width"], data["inner_height"]) == (40, 10, 560, 200)
    assert (data["width"], data["height"]) == (640, 240)


@pytest.mark.parametrize(
    ("metrics", "expected"),
    [({"map": 0.1, "recall@10": 0.2}, "recall@10"), ({"map": 0.1}, "map"), ({"ndcg@10": 0.1}, "ndcg@10")],
)
def test_the_default_metric_is_the_first_preferred_one_stored(
    metrics: dict[str, float], expected: str
) -> None:
    runs = [StoredRun("x:y", "x", "y", "d", DAY[1], metrics, False)]
    assert default_metric(runs) == expected


def test_no_runs_have_no_metric() -> None:
    assert default_metric([]) is None and known_metrics([]) == []
    assert known_metrics(RUNS) == ["map", "ndcg@10"]
