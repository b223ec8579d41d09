import pytest

from control_plane.search.query_cache.lru import TtlLru


class Clock:
    """A settable clock: expiry is tested without sleeping."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_an_entry_lives_until_its_ttl_has_passed() -> None:
    clock = Clock()
    cache: TtlLru[str, int] = TtlLru(max_entries=4, ttl_s=10, clock=clock)
    cache.put("a", 1)
    clock.now = 109.99
    assert cache.get("a") == 1
    clock.now = 110.0
    assert cache.get("a") is None
    assert len(cache) == 0  # the expired entry is dropped on lookup


def test_storing_again_restarts_the_ttl() -> None:
    clock = Clock()
    cache: TtlLru[str, int] = TtlLru(max_entries=4, ttl_s=10, clock=clock)
    cache.put("a", 1)
    clock.now = 105.0
    cache.put("a", 2)
    clock.now = 114.0
    assert cache.get("a") == 2


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: TtlLru[str, int] = TtlLru(max_entries=2, ttl_s=10, clock=Clock())
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2


def test_clear_empties_it() -> None:
    cache: TtlLru[str, int] = TtlLru(max_entries=2, ttl_s=10, clock=Clock())
    cache.put("a", 1)
    cache.clear()
    assert cache.get("a") is None


@pytest.mark.parametrize(("entries", "ttl"), [(0, 10.0), (1, 0.0)])
def test_a_size_or_ttl_that_cannot_hold_anything_is_refused(entries: int, ttl: float) -> None:
    with pytest.raises(ValueError, match="max_entries must be >= 1 and ttl_s > 0"):
        TtlLru(max_entries=entries, ttl_s=ttl)
