"""Pool the top ``depth`` chunks of several configurations per question, for judging by reading.

Configurations: BM25, SPLADE and dense alone (the search service, one component, boosts off); the
plain-text hybrid query straight to OpenSearch through the ``hybrid-minmax`` and ``hybrid-rrf`` search
pipelines (what ``biohybrid query`` sends); and the search service behind /v1/search with RRF and weighted
fusion, clinical boosts on and off. Output: one JSON line per (query, chunk) with the configurations that
retrieved it and its best rank.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings, load_settings
from control_plane.evaluation.natural_set.build import read_jsonl
from control_plane.fusion.methods import FusionMethod
from control_plane.query.components import text_search_body
from control_plane.search.service import SearchService
from control_plane.search.spec import Component, SearchSpec

Retrieve = Callable[[str], list[str]]

DIRECT_PIPELINES = ("hybrid-minmax", "hybrid-rrf")
SINGLE_COMPONENTS: tuple[Component, ...] = ("bm25", "splade", "dense")
SERVICE_FUSIONS: tuple[FusionMethod, ...] = ("rrf", "weighted")


def configurations(settings: Settings, index: str, depth: int, tenant: str) -> dict[str, Retrieve]:
    """Configuration name -> a function from query text to chunk ids, best first."""
    client = make_client(settings.opensearch)
    service = SearchService(client, settings)

    def direct(pipeline: str) -> Retrieve:
        def retrieve(text: str) -> list[str]:
            body = text_search_body(text, depth)
            response = client.search(index=index, params={"search_pipeline": pipeline}, body=body)
            return [str(hit["_id"]) for hit in response["hits"]["hits"]]

        return retrieve

    def through_service(components: tuple[Component, ...], fusion: FusionMethod, boosts: bool) -> Retrieve:
        def retrieve(text: str) -> list[str]:
            spec = SearchSpec(
                query=text, size=depth, components=components, fusion_method=fusion, boosts=boosts
            )
            ids: list[str] = []
            for result in service.search(spec, tenant, index).results:
                for chunk_id in (getattr(result, "chunk_id", None), *getattr(result, "merged_from", ())):
                    if chunk_id and chunk_id not in ids:
                        ids.append(chunk_id)
            return ids

        return retrieve

    found: dict[str, Retrieve] = {c: through_service((c,), "rrf", False) for c in SINGLE_COMPONENTS}
    found.update({f"direct-{p}": direct(p) for p in DIRECT_PIPELINES})
    for fusion in SERVICE_FUSIONS:
        for boosts in (True, False):
            name = f"api-{fusion}-{'boosts' if boosts else 'noboosts'}"
            found[name] = through_service(SINGLE_COMPONENTS, fusion, boosts)
    return found


def write_pool(queries_path: Path, out: Path, index: str, depth: int, tenant: str) -> int:
    """Pool every question of ``queries_path`` into ``out``; return the number of (query, chunk) pairs."""
    runs = configurations(load_settings(), index, depth, tenant)
    pairs = 0
    with out.open("w", encoding="utf-8") as lines:
        for query in read_jsonl(queries_path):
            found: dict[str, list[str]] = {}
            best: dict[str, int] = {}
            for name, retrieve in runs.items():
                for rank, chunk_id in enumerate(retrieve(str(query["text"]))[:depth], start=1):
                    found.setdefault(chunk_id, []).append(name)
                    best[chunk_id] = min(best.get(chunk_id, rank), rank)
            for chunk_id, names in found.items():
                row = {"query_id": query["_id"], "chunk_id": chunk_id, "configurations": names}
                lines.write(json.dumps({**row, "best_rank": best[chunk_id]}) + "\n")
            pairs += len(found)
    return pairs
