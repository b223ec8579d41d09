"""The request that fetches routed sections (chunks matching a boost) of the records a query is about,
under the request's tenant and filters. Used by /v1/search's routing and by the clinical benchmark."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from control_plane.search.intents import Boost, boost_filter
from control_plane.search.request import EXCLUDED_SOURCE, filter_clauses
from control_plane.search.spec import Filters

# A trial's eligibility or outcome tables are a handful of chunks; a few records' worth fits.
ROUTED_SECTION_LIMIT: Final = 200


def section_query(
    tenant_id: str, filters: Filters, doc_ids: Sequence[str], boosts: Sequence[Boost]
) -> dict[str, Any]:
    """A filter-only search body: chunks of ``doc_ids`` that match any boost, in a stable order."""
    if not doc_ids or not boosts:
        raise ValueError("a section query needs documents and boosts")
    return {
        "size": ROUTED_SECTION_LIMIT,
        "_source": {"excludes": EXCLUDED_SOURCE},
        "query": {
            "bool": {
                "filter": [*filter_clauses(tenant_id, filters), {"terms": {"doc_id": list(doc_ids)}}],
                "should": [boost_filter(b) for b in boosts],
                "minimum_should_match": 1,
            }
        },
        "sort": [{"doc_id": "asc"}, {"chunk_id": "asc"}],
    }
