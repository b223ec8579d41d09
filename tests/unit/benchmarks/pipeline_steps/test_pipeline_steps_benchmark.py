"""The pipeline-steps benchmark's pure parts: per-step percentiles by hand, the routing step, the route
model's mean from two metric readings, the window copies of a pipeline, and the report."""

from __future__ import annotations

import pytest

from benchmarks.pipeline_steps.compute import StepTiming, mean_model_ms, route_step, step_timings
from benchmarks.pipeline_steps.measure import installed_window, with_window
from benchmarks.pipeline_steps.report import Findings, WindowRow, render_report
from benchmarks.run_stamp import RunStamp


def _answer(*durations: tuple[str, int]) -> list[dict[str, object]]:
    return [{"processor_name": name, "duration_millis": ms} for name, ms in durations]


def test_each_steps_percentiles_by_hand() -> None:
    answers = [
        _answer(("ml_inference", 10), ("rerank", 1), ("ml_inference", 40)),
        _answer(("ml_inference", 30), ("rerank", 3), ("ml_inference", 60)),
        _answer(("ml_inference", 20), ("rerank", 2), ("ml_inference", 50)),
    ]
    timings = step_timings(answers)
    # nearest rank over 3 samples: P50 is the 2nd smallest, P95 the largest
    assert [(t.position, t.name, t.n, t.p50, t.p95) for t in timings] == [
        (1, "ml_inference", 3, 20.0, 30.0),
        (2, "rerank", 3, 2.0, 3.0),
        (3, "ml_inference", 3, 50.0, 60.0),
    ]
    assert route_step(timings).position == 3
    # the page's metadata step after the cut is a third call: the routing step is still the second
    page = step_timings(
        [_answer(("ml_inference", 3), ("ml_inference", 12), ("truncate_hits", 0), ("ml_inference", 2))]
    )
    assert route_step(page).position == 2


def test_a_pipeline_that_changed_mid_run_is_refused() -> None:
    with pytest.raises(ValueError, match="changed during the run"):
        step_timings([_answer(("ml_inference", 1)), _answer(("rerank", 1))])
    with pytest.raises(ValueError, match="no answer"):
        step_timings([])


def test_a_pipeline_without_a_response_side_model_has_no_routing_step() -> None:
    with pytest.raises(ValueError, match="no response-side ml_inference"):
        route_step(step_timings([_answer(("ml_inference", 5), ("truncate_hits", 0))]))


def test_the_route_models_mean_from_two_readings() -> None:
    assert mean_model_ms(1.0, 1.5, 100, 150) == pytest.approx(10.0)
    with pytest.raises(ValueError, match="not called"):
        mean_model_ms(1.0, 1.0, 100, 100)


PIPELINE = {
    "request_processors": [
        {"ml_inference": {"model_id": "m"}},
        {
            "script": {
                "source": "if (ctx._source.size == null || ctx._source.size < 50) { ctx._source.size = 50 }"
            }
        },
    ],
    "response_processors": [{"truncate_hits": {}}],
}


def test_a_window_copy_changes_the_window_and_nothing_else() -> None:
    assert installed_window(PIPELINE) == 50
    copied = with_window(PIPELINE, 10)
    assert installed_window(copied) == 10
    assert copied["request_processors"][1]["script"]["source"].count("10") == 2
    assert copied["request_processors"][0] == PIPELINE["request_processors"][0]
    assert copied["response_processors"] == PIPELINE["response_processors"]
    assert installed_window(PIPELINE) == 50  # the installed body is not touched
    with pytest.raises(ValueError, match="no routing-window script"):
        installed_window({"request_processors": [{"oversample": {}}]})


def test_the_report_names_the_run_and_each_window() -> None:
    steps = [StepTiming(1, "ml_inference", 3, 12, 15), StepTiming(2, "ml_inference", 3, 55, 70)]
    rows = (
        WindowRow(10, "bench-steps-window-10", steps, StepTiming(2, "ml_inference", 3, 19, 25), 4.0),
        WindowRow(50, "clinical-minmax", steps, steps[1], 9.5),
        WindowRow(100, "bench-steps-window-100", [steps[0]], steps[1], 9.5),
    )
    stamp = RunStamp("python -m benchmarks.pipeline_steps --out x.md", "vm", "2026-11-28 05:00 UTC", 1.0, 1.5)
    text = render_report(
        Findings("clinical-minmax", "3 clinical-natural/dev questions", rows), stamp, "chunks-demo"
    )
    assert "- command: `python -m benchmarks.pipeline_steps --out x.md`" in text
    assert "## Steps of `clinical-minmax` (routing window 50)" in text  # the installed one, not the widest
    assert "| 10 | `bench-steps-window-10` | 19 | 25 | 4.0 | 15 |" in text
    assert "| 50 | `clinical-minmax` | 55 | 70 | 9.5 | 46 |" in text
