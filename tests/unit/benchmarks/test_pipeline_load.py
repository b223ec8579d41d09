import math

from benchmarks.pipeline_load.compute import Call, LoadPoint, load_point, saturation_ratio
from benchmarks.pipeline_load.measure import body_for
from benchmarks.pipeline_load.report import render_report


def test_a_load_point_counts_answers_per_second_and_keeps_each_failure_with_its_reason() -> None:
    calls = [Call(0.1), Call(0.2), Call(0.3), Call(0.4), Call(1.0, 429, "busy"), Call(2.0, 0, "timeout")]
    point = load_point("clinical-minmax", 4, calls, seconds=2.0)
    assert (point.answered, point.failed, point.qps) == (4, 2, 2.0)  # 4 answered over 2 s
    assert (point.p50_ms, point.p95_ms) == (200.0, 400.0)  # nearest rank over 100, 200, 300, 400 ms
    assert point.failures == (("429: busy", 1), ("0: timeout", 1))


def test_a_point_with_no_answer_has_no_latency() -> None:
    point = load_point("api", 1, [Call(1.0, 503, "down")], seconds=1.0)
    assert point.qps == 0.0 and math.isnan(point.p50_ms)


def _point(path: str, clients: int, qps: float) -> LoadPoint:
    return LoadPoint(path, clients, 1, 0, qps, 1.0, 1.0, ())


def test_the_saturation_ratio_compares_each_paths_best_throughput() -> None:
    points = [
        _point("hybrid-minmax", 4, 10.0),
        _point("hybrid-minmax", 20, 8.0),
        _point("clinical-minmax", 20, 7.5),
    ]
    assert saturation_ratio(points, "clinical-minmax", "hybrid-minmax") == 0.75
    assert saturation_ratio(points, "api", "hybrid-minmax") is None


def test_each_path_gets_the_body_its_clients_send() -> None:
    assert body_for("clinical-minmax", "q")["query"] == {"match": {"text": "q"}}
    assert body_for("hybrid-minmax", "q")["query"]["hybrid"]["pagination_depth"] == 100
    assert body_for("api", "q") == {"query": "q", "size": 10}


def test_the_report_lists_failures_under_their_point() -> None:
    point = LoadPoint("clinical-minmax", 20, 10, 2, 5.0, 100.0, 200.0, (("429: busy", 2),))
    text = render_report("T", ["- command: `x`"], [point])
    assert "| clinical-minmax | 20 | 10 | 2 | 5.0 | 100 | 200 |" in text
    assert "  - 2 × `429: busy`" in text
