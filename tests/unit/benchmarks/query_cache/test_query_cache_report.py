from benchmarks.query_cache.compute import Latency, ModeFigures
from benchmarks.query_cache.draw import Draw
from benchmarks.query_cache.report import Header, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.config.search_settings import QueryCacheSettings
from control_plane.testsets.catalog import Query

NONE = Latency(0, None, None, None, None)


def _figures(mode: str, p50: float, response: float | None, state: Latency = NONE) -> ModeFigures:
    latency = Latency(4, p50, 2 * p50, 3 * p50, p50)
    return ModeFigures(mode, 4, 0, 0, latency, latency, latency, response, 0.5, state)


def test_the_report_states_the_draw_and_a_row_per_mode() -> None:
    a, b = Query("q1", "x"), Query("q2", "y")
    header = Header(
        run=RunStamp("python -m benchmarks.query_cache --out r.md", "x86_64", "today", 0.5, 1.5),
        index="chunks-nfcorpus",
        chunks=6794,
        query_sets="nfcorpus/train + nfcorpus/dev",
        draw=Draw((a, b, a, a), pool=2914, exponent=0.8, seed="s"),
        warmup=20,
        size=10,
        cache=QueryCacheSettings(),
        method="nearest-rank",
        providers="bge-small (dense): CPUExecutionProvider",
        metrics={"on": {'retrieve_cache_hit_rate{cache="response"}': 0.25}},
    )
    state = Latency(4, 2.0, 3.5, 4.0, 2.5)
    text = render_report(header, [_figures("off", 120.0, None), _figures("on", 10.0, 0.5, state)], "r.png")
    assert "2 distinct queries drawn, so 50.0% of requests repeat an earlier one" in text
    assert "| off | no cache | 4 | 120.0 | 240.0 | 360.0 | 120.0 | 0 | 0 |" in text
    assert "| on | encodings and answers cached | 4 | 10.0 | 20.0 | 30.0 | 10.0 | 0 | 0 |" in text
    assert "| on | 50.0% | 50.0% | 25.0% / - |" in text
    assert "| on | 4 | 2.0 | 3.5 | 4.0 | 2.5 |" in text
    assert "- 1-minute load average before / after: 0.50 / 1.50" in text
