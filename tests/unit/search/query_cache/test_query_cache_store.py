from control_plane.search.query_cache.encodings import EncodingKey, QueryEncodingCache
from control_plane.search.query_cache.lru import TtlLru
from control_plane.search.query_cache.stats import CacheCounts, CacheStats


def _cache() -> QueryEncodingCache:
    return QueryEncodingCache(TtlLru(max_entries=8, ttl_s=60))


def test_a_dense_vector_comes_back_exactly_and_as_a_fresh_list() -> None:
    cache, key = _cache(), EncodingKey("t", "dense", "d1", "statin")
    vector = [0.1, -0.30000000000000004, 1e-12]
    cache.put(key, vector)
    first = cache.get(key)
    assert first == vector and first is not vector
    assert isinstance(first, list)
    first[0] = 9.0
    assert cache.get(key) == vector


def test_sparse_terms_come_back_exactly_in_order_and_as_a_fresh_dict() -> None:
    cache, key = _cache(), EncodingKey("t", "splade", "s1", "statin")
    terms = {"stat": 2.25, "##in": 1.125, "drug": 0.0625}
    cache.put(key, terms)
    got = cache.get(key)
    assert got == terms and list(got or {}) == ["stat", "##in", "drug"]
    assert isinstance(got, dict)
    got["stat"] = 0.0
    assert cache.get(key) == terms


def test_keys_of_other_models_or_components_do_not_collide() -> None:
    cache = _cache()
    cache.put(EncodingKey("t", "dense", "d1", "statin"), [1.0])
    assert cache.get(EncodingKey("t", "dense", "d2", "statin")) is None
    assert cache.get(EncodingKey("t", "splade", "d1", "statin")) is None


def test_hit_rates_are_hits_over_lookups_per_cache() -> None:
    stats = CacheStats()
    for _ in range(3):
        stats.hit("encoding")
    stats.miss("encoding")
    counts = stats.counts()
    assert counts["encoding"] == CacheCounts(hits=3, misses=1)
    assert counts["encoding"].hit_rate == 0.75
    assert counts["response"] == CacheCounts(0, 0) and counts["response"].hit_rate == 0.0
