"""Build an opensearch-py client from settings."""

from __future__ import annotations

from opensearchpy import OpenSearch

from control_plane.config.settings import OpenSearchSettings


def make_client(settings: OpenSearchSettings, retry_on_timeout: bool = True) -> OpenSearch:
    """Admin work retries a timed-out request twice; searches with their own budgets must not
    (``retry_on_timeout=False``): a retry would triple the budget and leave the abandoned request
    running. With several nodes a request that cannot connect moves on to the next node (up to one try
    per node), and a node that failed is left alone for a while."""
    hosts = settings.hosts
    return OpenSearch(
        hosts=hosts,
        timeout=settings.timeout_s,
        retry_on_timeout=retry_on_timeout,
        max_retries=max(2, len(hosts)),
    )
