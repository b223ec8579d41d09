"""Which OpenSearch answers are transient: a node leaving or a shard recovering, so the same request
succeeds a moment later. The one classifier of every path: the direct clients' bounded retry
(``retry.py``: `biohybrid query`, the Haystack retriever, the benchmarks, the cluster tests), the
ml-commons writes (``is_unstarted_shard`` only: those writes are not idempotent) and the control API's
error mapping (503, "try again", rather than 502, "refused").

It reads what OpenSearch answers: the status and the error body's types and reasons, at every depth
(``root_cause``, ``caused_by``, a search's ``failed_shards``), as opensearch-py and raw HTTP clients
both get them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import requests
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError

# The shard a request needs has not started (a new index, a primary failing over): it never ran.
UNSTARTED_SHARD_TYPES = frozenset(
    {
        "no_shard_available_action_exception",
        "unavailable_shards_exception",
        "primary_missing_action_exception",
        "shard_not_in_primary_mode_exception",
    }
)
# A node left between the request's routing and its answer (a restart, a kill), whatever the status.
NODE_LEFT_TYPES = frozenset(
    {
        "node_closed_exception",
        "node_disconnected_exception",
        "node_not_connected_exception",
        "connect_transport_exception",
        "send_request_transport_exception",
        "retry_on_primary_exception",
        "cluster_manager_not_discovered_exception",
        "master_not_discovered_exception",
    }
)
# The node that left is still named in a routing table OpenSearch reads: a 500 whose cause is a
# NullPointerException on DiscoveryNode.getId() ("node" is null), seen in CI during a rolling restart.
_NULL_NODE_MARK = "DiscoveryNode.getId()"
# A cluster block of level SERVICE_UNAVAILABLE: the node has not recovered the cluster state yet (it is
# restarting) or has no cluster manager. Transient whatever the status: CI saw it as a 500 from a search
# through a pipeline that calls ml-commons on a node rejoining during a rolling restart. Other blocks
# (FORBIDDEN: read-only, closed index) refuse the request.
_SERVICE_UNAVAILABLE_BLOCK = "blocked by: [SERVICE_UNAVAILABLE/"
# Statuses that mean "not now" from the node or a proxy in front of it (no node serves, shards gone).
TRANSIENT_STATUSES = frozenset({502, 503, 504})


def causes(body: Any) -> Iterator[tuple[str, str]]:
    """Every (type, reason) an OpenSearch error body names: the error, its root causes, the causes it
    wraps and the failed shards' reasons. A body that is not JSON counts as one reason."""
    if isinstance(body, str):
        yield "", body
        return
    if not isinstance(body, Mapping):
        return
    error = body.get("error", body)
    if isinstance(error, str):
        yield error, str(body.get("reason", ""))
        return
    if not isinstance(error, Mapping):
        return
    yield str(error.get("type", "")), str(error.get("reason", ""))
    for nested in (*(error.get("root_cause") or ()), error.get("caused_by")):
        if isinstance(nested, Mapping):
            yield from causes({"error": nested})
    for failure in error.get("failed_shards") or ():
        if isinstance(failure, Mapping):
            yield from causes({"error": failure.get("reason", {})})


def is_unstarted_shard_answer(body: Any) -> bool:
    """Whether the answer says the shard the request needs has not started (so nothing was written)."""
    return _unstarted(list(causes(body)))


def is_transient_answer(status: int | None, body: Any) -> bool:
    """Whether an HTTP answer of OpenSearch (``status``, the parsed or raw body) is a node leaving or a
    shard recovering, worth sending again; a refused request (4xx, a failure of its own) is not."""
    return _transient(status, list(causes(body)))


def is_transient(error: BaseException) -> bool:
    """Whether a raised error is transient: no connection to the node (a refused or broken one, not a
    timeout: the request's budget is spent, and a retry would multiply it), or a transient answer."""
    if isinstance(error, ConnectionTimeout):
        return False
    if isinstance(error, OpenSearchConnectionError):
        return True
    if isinstance(error, requests.ConnectionError):
        return not isinstance(error, requests.ReadTimeout)
    if isinstance(error, TransportError):
        status = error.status_code if isinstance(error.status_code, int) else None
        return _transient(status, _causes(error))
    return False


def is_unstarted_shard(error: BaseException) -> bool:
    """Whether a raised error is an answer saying the needed shard has not started (the request never
    ran, so even a write that is not idempotent may be sent again)."""
    return (
        isinstance(error, TransportError)
        and not isinstance(error, OpenSearchConnectionError)
        and _unstarted(_causes(error))
    )


def _unstarted(found: list[tuple[str, str]]) -> bool:
    return any(kind in UNSTARTED_SHARD_TYPES for kind, _ in found)


def _transient(status: int | None, found: list[tuple[str, str]]) -> bool:
    if any(kind in UNSTARTED_SHARD_TYPES or kind in NODE_LEFT_TYPES for kind, _ in found):
        return True
    if any(_NULL_NODE_MARK in reason or _SERVICE_UNAVAILABLE_BLOCK in reason for _, reason in found):
        return True
    return status in TRANSIENT_STATUSES


def _causes(error: TransportError) -> list[tuple[str, str]]:
    """The error type opensearch-py read from the answer (with the raw text, when it could not parse
    it), then every cause its parsed body names."""
    info = error.info
    if isinstance(info, Mapping):
        return [(str(error.error), ""), *causes(info)]
    return [(str(error.error), "" if info is None else str(info))]
