from collections import Counter

import pytest

from benchmarks.query_cache.draw import Draw, popularity_order, warmup_queries, zipf_draw
from control_plane.testsets.catalog import Query

POOL = [Query(f"q{i}", f"text {i}") for i in range(50)]


def test_the_draw_is_reproducible_and_changes_with_the_seed() -> None:
    first = zipf_draw(POOL, 200, 1.0, "s1")
    assert first == zipf_draw(POOL, 200, 1.0, "s1")
    assert first.queries != zipf_draw(POOL, 200, 1.0, "s2").queries


def test_popular_ranks_are_drawn_in_proportion_to_one_over_rank_to_the_exponent() -> None:
    ordered = popularity_order(POOL, "s1")
    counts = Counter(q.query_id for q in zipf_draw(POOL, 20000, 1.0, "s1").queries)
    harmonic = sum(1 / r for r in range(1, 51))  # H_50 = 4.499...
    assert counts[ordered[0].query_id] / 20000 == pytest.approx(1 / harmonic, abs=0.01)  # 0.222
    assert counts[ordered[1].query_id] / 20000 == pytest.approx(0.5 / harmonic, abs=0.01)  # 0.111


def test_exponent_zero_is_uniform() -> None:
    counts = Counter(q.query_id for q in zipf_draw(POOL, 20000, 0.0, "s1").queries)
    assert all(count / 20000 == pytest.approx(1 / 50, abs=0.006) for count in counts.values())


def test_repeats_flag_every_request_after_a_querys_first() -> None:
    a, b = POOL[0], POOL[1]
    draw = Draw((a, b, a, a, b), pool=2, exponent=1.0, seed="s")
    assert draw.repeats() == [False, False, True, True, True]
    assert (draw.distinct, draw.repeat_rate) == (2, 0.6)


def test_warm_up_queries_are_never_in_the_draw() -> None:
    draw = zipf_draw(POOL, 30, 1.0, "s1")
    warm = warmup_queries(POOL, draw, 5)
    assert len(warm) == 5
    assert not {q.query_id for q in warm} & {q.query_id for q in draw.queries}


def test_a_draw_needs_requests_and_a_non_negative_exponent() -> None:
    with pytest.raises(ValueError, match="count must be >= 1"):
        zipf_draw(POOL, 0, 1.0, "s")
    with pytest.raises(ValueError, match="the exponent >= 0"):
        zipf_draw(POOL, 10, -1.0, "s")
