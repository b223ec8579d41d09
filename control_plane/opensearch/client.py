"""Build an opensearch-py client from settings."""

from __future__ import annotations

from opensearchpy import OpenSearch

from control_plane.config.settings import OpenSearchSettings


def make_client(settings: OpenSearchSettings) -> OpenSearch:
    return OpenSearch(
        hosts=[settings.url],
        timeout=settings.timeout_s,
        retry_on_timeout=True,
        max_retries=2,
    )
