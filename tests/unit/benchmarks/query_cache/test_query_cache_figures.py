from benchmarks.query_cache.compute import Latency, mode_figures
from benchmarks.query_cache.measure import Sample, rotated, sample_of
from control_plane.testsets.catalog import Query


def _sample(mode: str, ms: float | None, repeat: bool = False, **fields: object) -> Sample:
    return Sample(mode, 0, "q1", repeat, ms, **fields)  # type: ignore[arg-type]


def test_figures_per_mode_split_first_seen_and_repeated_queries() -> None:
    samples = [
        _sample("on", 100.0, response_cache="miss", encoding_hits=0, encoding_lookups=2, state_ms=2.0),
        _sample("on", 4.0, True, response_cache="hit", state_ms=3.0),
        _sample("on", 90.0, True, response_cache="miss", encoding_hits=2, encoding_lookups=2, state_ms=4.0),
        _sample("on", None, error="ReadTimeout"),
        _sample("off", 120.0),
    ]
    on = mode_figures(samples, "on", "nearest-rank")
    assert (on.requests, on.errors, on.degraded) == (4, 1, 0)
    assert on.latency == Latency(3, 90.0, 100.0, 100.0, 194 / 3)
    assert on.first_seen == Latency(1, 100.0, 100.0, 100.0, 100.0)
    assert on.repeated == Latency(2, 4.0, 90.0, 90.0, 47.0)
    assert on.response_hit_rate == 1 / 3
    assert on.encoding_hit_rate == 0.5
    assert on.state == Latency(3, 3.0, 4.0, 4.0, 3.0)
    off = mode_figures(samples, "off", "nearest-rank")
    assert (off.response_hit_rate, off.encoding_hit_rate, off.state.n) == (None, None, 0)


def test_a_sample_reads_the_cache_metadata_and_degradation() -> None:
    answer = {
        "metadata": {
            "component_errors": ["dense_timeout"],
            "cache": {"response": "miss", "encodings": {"dense": "miss", "splade": "hit"}, "state_ms": 1.5},
        }
    }
    sample = sample_of("on", 3, Query("q9", "x"), True, (12.5, answer, None))
    assert sample == Sample(
        "on",
        3,
        "q9",
        True,
        12.5,
        "degraded: dense_timeout",
        "miss",
        encoding_hits=1,
        encoding_lookups=2,
        state_ms=1.5,
    )
    assert sample_of("on", 3, Query("q9", "x"), False, (None, None, "HTTP 503")).error == "HTTP 503"


def test_modes_take_turns_going_first() -> None:
    assert [rotated(["off", "encoding", "on"], i)[0] for i in range(4)] == ["off", "encoding", "on", "off"]
