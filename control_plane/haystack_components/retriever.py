"""BiohybridRetriever: the project's hybrid search as a Haystack retriever.

- ``mode="pipeline"`` (default): plain text straight to an OpenSearch search pipeline (hybrid-rrf or
  hybrid-minmax; ml-commons encodes the query through the project's connectors), the way direct clients
  query. Each sub-query is named after its component, so every Document carries component scores.
  ``tenant_id`` adds the tenant term a direct client's own index permissions would otherwise impose;
  ``opensearch`` is the connection as the control plane's settings spell it (TLS and a user included).
- ``mode="api"``: GET /v1/search with an API key, for the clinical boosts, routing and degradation
  (the key's tenant bounds the answer).
Both take the OData options: ``odata_filter`` ($filter, ANDed after the tenant), ``odata_orderby``,
``top_k`` ($top) and ``skip`` ($skip).
"""

from __future__ import annotations

import os
from typing import Any, Literal

import requests
from haystack import Document, component, default_from_dict, default_to_dict
from opensearchpy import OpenSearch

from control_plane.cluster.client import make_client
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.query.components import COMPONENTS, VECTOR_FIELDS, product_text_hybrid
from control_plane.resilience.retry import retry_search
from control_plane.search.odata.clauses import filter_clause
from control_plane.search.odata.syntax import parse_filter, parse_orderby
from control_plane.search.ordering import ordered_chunks
from control_plane.search.results import ChunkResult, chunk_result

Mode = Literal["pipeline", "api"]


@component
class BiohybridRetriever:
    def __init__(
        self,
        mode: Mode = "pipeline",
        opensearch: dict[str, Any] | None = None,
        index: str = "chunks-*",
        search_pipeline: str = "hybrid-rrf",
        tenant_id: str | None = None,
        api_url: str = "http://127.0.0.1:8600",
        api_key_env: str = "BIOHYBRID_API_KEY",
        top_k: int = 10,
        candidate_depth: int = 100,
        timeout_s: float = 30.0,
    ) -> None:
        if mode not in ("pipeline", "api"):
            raise ValueError(f"mode must be 'pipeline' or 'api', got {mode!r}")
        if top_k < 1 or candidate_depth < 1:
            raise ValueError("top_k and candidate_depth must be at least 1")
        self.mode: Mode = mode
        # The connection as the control plane's settings spell it (url / urls, username, password_file,
        # ca_certs, ...): validated now, so a typo fails when the pipeline is built, not at query time.
        self.opensearch = dict(opensearch or {})
        self._connection = OpenSearchSettings.model_validate(self.opensearch)
        self.index = index
        self.search_pipeline = search_pipeline
        self.tenant_id = tenant_id
        self.api_url = api_url.rstrip("/")
        self.api_key_env = api_key_env  # the key itself never goes into a serialised pipeline
        self.top_k = top_k
        self.candidate_depth = candidate_depth
        self.timeout_s = timeout_s
        self._client: OpenSearch | None = None
        self._session: requests.Session | None = None

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            mode=self.mode,
            opensearch=self.opensearch,
            index=self.index,
            search_pipeline=self.search_pipeline,
            tenant_id=self.tenant_id,
            api_url=self.api_url,
            api_key_env=self.api_key_env,
            top_k=self.top_k,
            candidate_depth=self.candidate_depth,
            timeout_s=self.timeout_s,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BiohybridRetriever:
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(
        self,
        query: str,
        top_k: int | None = None,
        skip: int = 0,
        odata_filter: str | None = None,
        odata_orderby: str | None = None,
    ) -> dict[str, list[Document]]:
        from control_plane.haystack_components.documents import to_document

        size = top_k or self.top_k
        if skip < 0:
            raise ValueError(f"skip must be >= 0, got {skip}")
        if self.mode == "api":
            results = self._from_api(query, size, skip, odata_filter, odata_orderby)
        else:
            results = self._from_pipeline(query, size, skip, odata_filter, odata_orderby)
        return {"documents": [to_document(r) for r in results]}

    def _from_pipeline(
        self, query: str, size: int, skip: int, odata_filter: str | None, odata_orderby: str | None
    ) -> list[ChunkResult]:
        filters: list[dict[str, Any]] = []
        if self.tenant_id is not None:
            filters.append({"term": {"tenant_id": self.tenant_id}})
        if odata_filter:
            filters.append(filter_clause(parse_filter(odata_filter)))
        keys = parse_orderby(odata_orderby) if odata_orderby else ()
        # Ordered keys reorder the fused candidates (as /v1/search does), so fetch them all first.
        window = self.candidate_depth if keys else skip + size
        body = {
            "size": window,
            "_source": {"excludes": list(VECTOR_FIELDS)},
            "query": product_text_hybrid(query, self.candidate_depth, filters),
        }
        params = {
            "search_pipeline": self.search_pipeline,
            "include_named_queries_score": "true",
            "request_timeout": self.timeout_s,
        }
        # A node leaving or a shard recovering answers for a moment: asked again (resilience/transient.py).
        answer = retry_search(
            lambda: self._opensearch().search(index=self.index, body=body, params=params),
            what="haystack retriever",
        )
        chunks = [chunk_result(hit, False, tuple(COMPONENTS)) for hit in answer["hits"]["hits"]]
        return ordered_chunks(chunks, keys)[skip : skip + size]

    def _from_api(
        self, query: str, size: int, skip: int, odata_filter: str | None, odata_orderby: str | None
    ) -> list[ChunkResult]:
        key = os.environ.get(self.api_key_env)
        if not key:
            raise ValueError(f"mode 'api' needs a search API key in ${self.api_key_env}")
        params = {"q": query, "$top": str(size), "$skip": str(skip)}
        if odata_filter:
            params["$filter"] = odata_filter
        if odata_orderby:
            params["$orderby"] = odata_orderby
        session = self._session = self._session or requests.Session()
        response = session.get(
            f"{self.api_url}/v1/search", params=params, headers={"X-API-Key": key}, timeout=self.timeout_s
        )
        if response.status_code != 200:
            raise RuntimeError(f"/v1/search answered {response.status_code}: {response.text[:500]}")
        return [ChunkResult.model_validate(r) for r in response.json()["results"]]

    def _opensearch(self) -> OpenSearch:
        if self._client is None:
            self._client = make_client(self._connection, retry_on_timeout=False)
        return self._client
