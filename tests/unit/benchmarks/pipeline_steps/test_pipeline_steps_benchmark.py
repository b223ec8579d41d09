"""The pipeline-steps benchmark's pure parts: per-step percentiles by hand, the routing step, the route
model's mean from two metric readings, the window copies of a pipeline, and the report."""

from __future__ import annotations

import pytest

from benchmarks.pipeline_steps.compute import (
    StepTiming,
    mean_model_ms,
    paired_median,
    route_step,
    step_timings,
)
from benchmarks.pipeline_steps.measure import installed_window, with_window
from benchmarks.pipeline_steps.paths import (
    CLINICAL,
    CLINICAL_LEANER,
    EXPLICIT_PAGE,
    EXPLICIT_WINDOW,
    EXPLICIT_WINDOW_LEAN,
    PATHS,
    REWRITE_ONLY,
    Timed,
    path_bodies,
)
from benchmarks.pipeline_steps.report import Findings, WindowRow, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.clinical.pipeline import ROUTING_FIELDS


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


def test_what_a_part_adds_is_the_median_of_each_questions_difference() -> None:
    # differences 5, -1, 30: the median 5 (the slow third question's 30 does not move it)
    assert paired_median([15.0, 9.0, 60.0], [10.0, 10.0, 30.0]) == 5.0
    with pytest.raises(ValueError, match="equal length"):
        paired_median([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="non-empty"):
        paired_median([], [])


def test_each_path_adds_one_part_to_the_one_before() -> None:
    bodies = path_bodies("aspirin dose", window=100, depth=100)
    roles = ["explicit", "explicit", "explicit", "rewrite", "clinical", "clinical"]
    assert [bodies[path][0] for path in PATHS] == roles
    assert "facet_json" in bodies[CLINICAL_LEANER][1]["_source"]["excludes"]
    assert bodies[EXPLICIT_PAGE][1]["size"] == 10 and bodies[EXPLICIT_WINDOW][1]["size"] == 100
    assert bodies[EXPLICIT_WINDOW_LEAN][1]["_source"] == {"includes": list(ROUTING_FIELDS)}
    assert bodies[EXPLICIT_WINDOW][1]["query"] == bodies[EXPLICIT_PAGE][1]["query"]
    assert (
        bodies[CLINICAL][1]
        == bodies[REWRITE_ONLY][1]
        == {
            "size": 10,
            "query": {"match": {"text": "aspirin dose"}},
            "_source": {"excludes": ["embedding", "sparse_terms"]},
        }
    )


def test_the_report_says_what_each_part_adds() -> None:
    stamp = RunStamp("python -m benchmarks.pipeline_steps --out x.md", "vm", "2026-12-02 05:00 UTC", 1.0, 1.5)
    step = StepTiming(2, "ml_inference", 2, 50, 60)
    row = WindowRow(100, "clinical-minmax", [step], step, 9.0)
    trips = {
        EXPLICIT_PAGE: 100,
        EXPLICIT_WINDOW: 130,
        EXPLICIT_WINDOW_LEAN: 110,
        REWRITE_ONLY: 150,
        CLINICAL: 230,
        CLINICAL_LEANER: 222,
    }
    paths = {path: [Timed(ms, ms - 20), Timed(ms + 2, ms - 18)] for path, ms in trips.items()}
    text = render_report(Findings("clinical-minmax", "2 questions", (row,), paths), stamp, "chunks-demo")
    assert f"| {EXPLICIT_PAGE} | 100 | 102 | 80 |" in text
    assert (
        f"| fetching the routing window instead of a page | {EXPLICIT_WINDOW} − {EXPLICIT_PAGE} | 30 |"
        in text
    )
    assert (
        f"| the response steps (route, reorders, cut, page metadata) | {CLINICAL} − {REWRITE_ONLY} | 80 |"
        in text
    )
    assert "| all of it: the plain form over the explicit page |" in text and "| 130 |" in text
    assert "| the bulky stored fields a client left in, through the clinical pipeline |" in text
    assert text.count("| 8 |") == 1  # 230 - 222
