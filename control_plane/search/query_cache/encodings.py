"""The query-encoding cache: (tenant, component, served model digest, normalised text) -> the dense vector or
the sparse term weights (per tenant: a hit, and its speed, would tell one tenant what another asked;
issue 73), stored compactly (doubles in an array, so a hit gives back exactly the floats the
service sent) and handed out as fresh lists and dicts (a caller cannot alter what is cached)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from control_plane.search.query_cache.lru import TtlLru
from control_plane.search.query_cache.served import ServedModel


@dataclass(frozen=True)
class EncodingKey:
    tenant: str
    component: str
    digest: str
    text: str


def encoding_key(tenant: str, component: str, model: ServedModel, query: str) -> EncodingKey:
    return EncodingKey(tenant, component, model.digest, model.normalise(query))


@dataclass(frozen=True)
class _Sparse:
    tokens: tuple[str, ...]
    weights: array[float]


class QueryEncodingCache:
    def __init__(self, store: TtlLru[EncodingKey, array[float] | _Sparse]) -> None:
        self._store = store

    def get(self, key: EncodingKey) -> list[float] | dict[str, float] | None:
        value = self._store.get(key)
        if value is None:
            return None
        if isinstance(value, _Sparse):
            return dict(zip(value.tokens, value.weights, strict=True))
        return list(value)

    def put(self, key: EncodingKey, value: list[float] | dict[str, float]) -> None:
        if isinstance(value, dict):
            self._store.put(key, _Sparse(tuple(value), array("d", value.values())))
        else:
            self._store.put(key, array("d", value))

    def __len__(self) -> int:
        return len(self._store)
