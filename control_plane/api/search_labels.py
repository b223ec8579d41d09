"""How a search answer is labelled in the API's Prometheus series: its mode (one component or hybrid),
its rerank outcome, and which boosts it applied. Pure, so the dashboard's rates (table routing, boost
application, rerank fallback) rest on tested definitions (ops/prometheus/rules.yml, ops/grafana/)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from control_plane.clinical.intents import routes_tables
from control_plane.search.results import SearchMetadata

RerankOutcome = Literal["off", "applied", "fallback"]
HYBRID: Final = "hybrid"


@dataclass(frozen=True)
class SearchLabels:
    mode: str
    """``hybrid`` when more than one component answered, else the one component (``none``: all dropped)."""
    fusion: str
    rerank: RerankOutcome
    """``off`` (not asked), ``applied``, ``fallback`` (asked, answered without it: reranker_error)."""
    boosted_intents: tuple[str, ...]
    """Intents whose section boosts (not table routing) the answer applied, sorted, each once."""
    table_routed: bool
    """The answer routed tables (an ``is_table`` boost from a tabular intent)."""


def search_labels(meta: SearchMetadata) -> SearchLabels:
    used = meta.components_used
    mode = HYBRID if len(used) > 1 else (used[0] if used else "none")
    rerank: RerankOutcome = "applied" if meta.reranked else ("fallback" if meta.reranker_error else "off")
    boosted = sorted({b.intent for b in meta.boosts if not routes_tables(b.field, b.tables_only)})
    table = any(routes_tables(b.field, b.tables_only) for b in meta.boosts)
    return SearchLabels(mode, meta.fusion.method, rerank, tuple(boosted), table)
