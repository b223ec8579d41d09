from __future__ import annotations

from benchmarks.ingest_throughput.compute import every_nth


def test_every_nth_spreads_the_sample_over_the_whole_list() -> None:
    assert every_nth(list(range(10)), 3) == [0, 4, 8]  # step ceil(10 / 3) = 4
    assert every_nth(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert every_nth(list(range(10)), 0) == list(range(10))
    assert every_nth(list(range(4)), 10) == [0, 1, 2, 3]
