"""The request that fetches routed sections (chunks matching a boost) of the records a query is about,
under the request's tenant and filters. Used by /v1/search's routing and by the clinical benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from opensearchpy import OpenSearch

from control_plane.clinical.intents import Boost, boost_filter
from control_plane.search.abandoned import UNWATCHED, WatchedCaller
from control_plane.search.request import EXCLUDED_SOURCE, filter_clauses
from control_plane.search.results import ChunkResult, chunk_result
from control_plane.search.spec import Filters

# Routed chunks fetched per record: a trial's eligibility, arms or outcome tables fit many times over.
SECTIONS_PER_DOCUMENT: Final = 60


def section_query(
    tenant_id: str,
    filters: Filters,
    doc_ids: Sequence[str],
    boosts: Sequence[Boost],
    facets_only: bool = False,
) -> dict[str, Any]:
    """A filter-only search body: chunks of ``doc_ids`` that match any boost and are not near-empty
    stubs, in a stable order, room for ``SECTIONS_PER_DOCUMENT`` of each record. ``facets_only``
    (facet granularity): only chunks with structured facts, as the search it follows."""
    if not doc_ids or not boosts:
        raise ValueError("a section query needs documents and boosts")
    return {
        "size": SECTIONS_PER_DOCUMENT * len(doc_ids),
        "_source": {"excludes": EXCLUDED_SOURCE},
        "query": {
            "bool": {
                "filter": [
                    *filter_clauses(tenant_id, filters, facets_only=facets_only),
                    {"terms": {"doc_id": list(doc_ids)}},
                ],
                "should": [boost_filter(b) for b in boosts],
                "minimum_should_match": 1,
                "must_not": [{"term": {"near_empty": True}}],
            }
        },
        "sort": [{"doc_id": "asc"}, {"chunk_id": "asc"}],
    }


def fetch_sections(
    client: OpenSearch,
    index: str,
    tenant_id: str,
    filters: Filters,
    doc_ids: Sequence[str],
    boosts: Sequence[Boost],
    timeout_s: float,
    ignore_unavailable: bool = False,
    facets_only: bool = False,
    caller: WatchedCaller = UNWATCHED,
) -> list[ChunkResult]:
    """The routed sections of these records as results with score 0 (no component scored them);
    [] for no record. ``ignore_unavailable``: as the search it follows (a missing index is skipped).
    ``facets_only`` (facet granularity): only chunks with structured facts, returned with them parsed.
    ``caller``: the request's watched caller (its search is cancelled if it leaves, search/abandoned.py)."""
    if not doc_ids:
        return []
    body = section_query(tenant_id, filters, doc_ids, boosts, facets_only=facets_only)
    params: dict[str, Any] = {"request_timeout": timeout_s}
    if ignore_unavailable:
        params["ignore_unavailable"] = "true"
    answer = caller.search(client, index=index, body=body, params=params)
    hits = answer["hits"]["hits"]
    return [chunk_result({**hit, "_score": 0.0}, False, (), facets=facets_only) for hit in hits]
