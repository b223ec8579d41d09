"""Which OpenSearch answers are transient: a node leaving, a shard recovering or the cluster busy, so the
same request succeeds a moment later. The one rule of every path: the direct clients' bounded retry
(``retry.py``: `biohybrid query`, the Haystack retriever, the benchmarks, the cluster tests), the control
API's searches and error mapping (503, "try again", rather than 502, "refused"), ingestion's batches
and bulk items (``is_transient_item``), and the ml-commons writes (``is_unstarted_shard`` only: those
writes are not idempotent).

It reads what OpenSearch answers: the status and the error body's types and reasons, at every depth
(``root_cause``, ``caused_by``, a search's ``failed_shards``), as opensearch-py and raw HTTP clients
both get them; and a search answered from some shards only (``is_transient_partial``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import requests
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout, TransportError
from opensearchpy.helpers.errors import ScanError

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
# Statuses that mean "not now" from the node or a proxy in front of it: busy (429: a full queue, a memory
# breaker tripped by the node's other work), no node serves, shards gone. A breaker the request trips on
# its own (fielddata, durability PERMANENT) comes as a 500 and is refused.
TRANSIENT_STATUSES = frozenset({429, 502, 503, 504})
# A shard failure inside a partial search answer that a node leaving mid-search causes, besides
# NODE_LEFT_TYPES: the node freed the search contexts of its shards as it shut down, so the fetch phase
# found none (a rolling restart under searches, 2026-11-28). As a whole answer the same type is a scroll
# that expired, which asking again does not mend, so it counts only here.
CONTEXT_FREED_TYPES = frozenset({"search_context_missing_exception"})
# What the cluster said when no HTTP answer came (opensearch-py's bulk helper: status "N/A").
NO_ANSWER_STATUS = 0


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
    for found in _errors(error):
        yield str(found.get("type", "")), str(found.get("reason", ""))


def _errors(error: Any) -> Iterator[Mapping[str, Any]]:
    """An error object and every error object it nests (root causes, causes, failed shards' reasons)."""
    if not isinstance(error, Mapping):
        return
    yield error
    for nested in (*(error.get("root_cause") or ()), error.get("caused_by")):
        yield from _errors(nested)
    for failure in error.get("failed_shards") or ():
        if isinstance(failure, Mapping):
            yield from _errors(failure.get("reason"))


def is_unstarted_shard_answer(body: Any) -> bool:
    """Whether the answer says the shard the request needs has not started (so nothing was written)."""
    return _unstarted(list(causes(body)))


def is_transient_answer(status: int | None, body: Any) -> bool:
    """Whether an HTTP answer of OpenSearch (``status``, the parsed or raw body) is a node leaving, a
    shard recovering or the cluster busy, worth sending again; a refused request (4xx, a failure of its
    own) is not."""
    return _transient(status, list(causes(body)))


def is_transient_item(outcome: Mapping[str, Any]) -> bool:
    """Whether a failed bulk item (``{"status", "error"}`` as opensearch-py's bulk helper yields it) is
    the cluster's trouble, worth sending again, rather than the record's: no HTTP answer (status "N/A"),
    or a transient answer."""
    status = item_status(outcome)
    return status == NO_ANSWER_STATUS or is_transient_answer(status, {"error": outcome.get("error")})


def item_status(outcome: Mapping[str, Any]) -> int:
    """A bulk item's HTTP status; 0 when there was no HTTP answer (a broken connection)."""
    status = outcome.get("status", NO_ANSWER_STATUS)
    if isinstance(status, int):
        return status
    return int(status) if str(status).isdigit() else NO_ANSWER_STATUS


def is_transient_partial(answer: Mapping[str, Any]) -> bool:
    """Whether a search answer is short only because shard copies left with a node mid-search: some
    shards failed, and every failure names a node leaving or a search context it freed. Their other
    copies answer the same search a moment later. A shard with no copy to answer (nothing started) is
    not: asked again at once it is as short."""
    shards = answer.get("_shards")
    if not isinstance(shards, Mapping) or not shards.get("failed"):
        return False
    failures = shards.get("failures") or ()
    return bool(failures) and all(_left_with_a_node(failure) for failure in failures)


def _left_with_a_node(failure: Any) -> bool:
    reason = failure.get("reason") if isinstance(failure, Mapping) else None
    kinds = {str(found.get("type", "")) for found in _errors(reason)}
    return bool(kinds & (NODE_LEFT_TYPES | CONTEXT_FREED_TYPES))


def is_transient(error: BaseException) -> bool:
    """Whether a raised error is transient: no connection to the node (a refused or broken one, not a
    timeout: the request's budget is spent, and a retry would multiply it), a transient answer, or a
    scroll that lost shards with a node (opensearch-py's ScanError: reading again is harmless)."""
    if isinstance(error, ConnectionTimeout):
        return False
    if isinstance(error, OpenSearchConnectionError | ScanError):
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
