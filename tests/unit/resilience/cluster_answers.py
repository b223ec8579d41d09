"""Answers OpenSearch gives while a node leaves or a shard recovers, and answers that refuse a request,
recorded as the node sends them (status and body text), and raised as opensearch-py raises them."""

from __future__ import annotations

import json
from typing import Any

from opensearchpy.connection.base import Connection
from opensearchpy.exceptions import TransportError

# (status, body) as the node answered.
NULL_NODE = (
    500,
    '{"error":{"root_cause":[{"type":"null_pointer_exception","reason":"Cannot invoke '
    '\\"org.opensearch.cluster.node.DiscoveryNode.getId()\\" because \\"node\\" is null"}],'
    '"type":"null_pointer_exception","reason":"Cannot invoke '
    '\\"org.opensearch.cluster.node.DiscoveryNode.getId()\\" because \\"node\\" is null"},"status":500}',
)
ALL_SHARDS_GONE = (
    503,
    '{"error":{"root_cause":[],"type":"search_phase_execution_exception","reason":"all shards failed",'
    '"phase":"query","grouped":true,"failed_shards":[]},"status":503}',
)
NO_SHARD_AVAILABLE = (
    503,
    '{"error":{"root_cause":[{"type":"no_shard_available_action_exception","reason":"No shard available '
    'for [get [eval-runs][r1:bm25]: routing [null]]"}],"type":"no_shard_available_action_exception",'
    '"reason":"No shard available for [get [eval-runs][r1:bm25]: routing [null]]"},"status":503}',
)
UNAVAILABLE_SHARDS = (
    503,
    '{"error":{"root_cause":[{"type":"unavailable_shards_exception","reason":"[.plugins-ml-connector][0] '
    "primary shard is not active Timeout: [1m], request: [BulkShardRequest [[.plugins-ml-connector][0]] "
    'containing [1] requests]"}],"type":"unavailable_shards_exception","reason":"[.plugins-ml-connector]'
    "[0] primary shard is not active Timeout: [1m], request: [BulkShardRequest [[.plugins-ml-connector]"
    '[0]] containing [1] requests]"},"status":503}',
)
SHARD_NODE_DISCONNECTED = (
    500,
    '{"error":{"root_cause":[{"type":"node_disconnected_exception","reason":"[node-2][127.0.0.1:9301]'
    '[indices:data/read/search[phase/query]] disconnected"}],"type":"search_phase_execution_exception",'
    '"reason":"all shards failed","phase":"query","grouped":true,"failed_shards":[{"shard":0,'
    '"index":"chunks-demo","node":"kQ2mWc1sQ0yT3mZ0b9o7fA","reason":{"type":"node_disconnected_exception",'
    '"reason":"[node-2][127.0.0.1:9301][indices:data/read/search[phase/query]] disconnected"}}]},'
    '"status":500}',
)
NODE_NOT_CONNECTED = (
    500,
    '{"error":{"root_cause":[{"type":"node_not_connected_exception","reason":"[node-3][127.0.0.1:9302] '
    'Node not connected"}],"type":"node_not_connected_exception","reason":"[node-3][127.0.0.1:9302] Node '
    'not connected"},"status":500}',
)
# A node rejoining during a rolling restart, through a pipeline that calls ml-commons (CI, 2026-11-26: the
# log kept the status and the reason; the type is what ml-commons wraps errors in).
STATE_NOT_RECOVERED = (
    500,
    '{"error":{"root_cause":[{"type":"status_exception","reason":"blocked by: [SERVICE_UNAVAILABLE/1/state '
    'not recovered / initialized];"}],"type":"status_exception","reason":"blocked by: '
    '[SERVICE_UNAVAILABLE/1/state not recovered / initialized];"},"status":500}',
)

PARSING = (
    400,
    '{"error":{"root_cause":[{"type":"parsing_exception","reason":"unknown query [mach]","line":1,'
    '"col":22}],"type":"parsing_exception","reason":"unknown query [mach]","line":1,"col":22},"status":400}',
)
NO_INDEX = (
    404,
    '{"error":{"root_cause":[{"type":"index_not_found_exception","reason":"no such index [chunks-nope]",'
    '"index":"chunks-nope","resource.type":"index_or_alias","resource.id":"chunks-nope",'
    '"index_uuid":"_na_"}],"type":"index_not_found_exception","reason":"no such index [chunks-nope]",'
    '"index":"chunks-nope","resource.type":"index_or_alias","resource.id":"chunks-nope",'
    '"index_uuid":"_na_"},"status":404}',
)
NO_PIPELINE = (
    400,
    '{"error":{"root_cause":[{"type":"illegal_argument_exception","reason":"Pipeline hybrid-nope is not '
    'defined"}],"type":"illegal_argument_exception","reason":"Pipeline hybrid-nope is not defined"},'
    '"status":400}',
)
OTHER_NULL_POINTER = (
    500,
    '{"error":{"root_cause":[{"type":"null_pointer_exception","reason":"Cannot invoke '
    '\\"java.util.List.size()\\" because \\"queries\\" is null"}],"type":"null_pointer_exception",'
    '"reason":"Cannot invoke \\"java.util.List.size()\\" because \\"queries\\" is null"},"status":500}',
)
BREAKER = (
    429,
    '{"error":{"root_cause":[{"type":"circuit_breaking_exception","reason":"[parent] Data too large, data '
    "for [<http_request>] would be [1031856128/984mb], which is larger than the limit of "
    '[1020054732/972.7mb]","bytes_wanted":1031856128,"bytes_limit":1020054732,"durability":"TRANSIENT"}],'
    '"type":"circuit_breaking_exception","reason":"[parent] Data too large","bytes_wanted":1031856128,'
    '"bytes_limit":1020054732,"durability":"TRANSIENT"},"status":429}',
)
READ_ONLY = (
    403,
    '{"error":{"root_cause":[{"type":"cluster_block_exception","reason":"index [chunks-a] blocked by: '
    '[FORBIDDEN/8/index write (api)];"}],"type":"cluster_block_exception","reason":"index [chunks-a] '
    'blocked by: [FORBIDDEN/8/index write (api)];"},"status":403}',
)
# A memory breaker the request trips on its own (the fielddata breaker, durability PERMANENT: the local
# cluster with indices.breaker.fielddata.limit 1b, a terms aggregation on a text field, 2026-11-28).
FIELDDATA_BREAKER = (
    500,
    '{"error":{"root_cause":[{"type":"exception","reason":"java.util.concurrent.ExecutionException: O'
    "penSearchException[java.util.concurrent.ExecutionException: CircuitBreakingException[[fielddata]"
    " Data too large, data for [t] would be [192/192b], which is larger than the limit of [1/1b]]]; n"
    "ested: ExecutionException[CircuitBreakingException[[fielddata] Data too large, data for [t] woul"
    "d be [192/192b], which is larger than the limit of [1/1b]]]; nested: CircuitBreakingException[[f"
    "ielddata] Data too large, data for [t] would be [192/192b], which is larger than the limit of [1"
    '/1b]];"}],"type":"search_phase_execution_exception","reason":"all shards failed","phase":"query"'
    ',"grouped":true,"failed_shards":[{"shard":0,"index":"rec-fd","node":"ijJYPLTXTuCvkyCndRd35w","re'
    'ason":{"type":"exception","reason":"java.util.concurrent.ExecutionException: OpenSearchException'
    "[java.util.concurrent.ExecutionException: CircuitBreakingException[[fielddata] Data too large, d"
    "ata for [t] would be [192/192b], which is larger than the limit of [1/1b]]]; nested: ExecutionEx"
    "ception[CircuitBreakingException[[fielddata] Data too large, data for [t] would be [192/192b], w"
    "hich is larger than the limit of [1/1b]]]; nested: CircuitBreakingException[[fielddata] Data too"
    ' large, data for [t] would be [192/192b], which is larger than the limit of [1/1b]];","caused_by'
    '":{"type":"execution_exception","reason":"OpenSearchException[java.util.concurrent.ExecutionExce'
    "ption: CircuitBreakingException[[fielddata] Data too large, data for [t] would be [192/192b], wh"
    "ich is larger than the limit of [1/1b]]]; nested: ExecutionException[CircuitBreakingException[[f"
    "ielddata] Data too large, data for [t] would be [192/192b], which is larger than the limit of [1"
    "/1b]]]; nested: CircuitBreakingException[[fielddata] Data too large, data for [t] would be [192/"
    '192b], which is larger than the limit of [1/1b]];","caused_by":{"type":"exception","reason":"jav'
    "a.util.concurrent.ExecutionException: CircuitBreakingException[[fielddata] Data too large, data "
    'for [t] would be [192/192b], which is larger than the limit of [1/1b]]","caused_by":{"type":"exe'
    'cution_exception","reason":"CircuitBreakingException[[fielddata] Data too large, data for [t] wo'
    'uld be [192/192b], which is larger than the limit of [1/1b]]","caused_by":{"type":"circuit_break'
    'ing_exception","reason":"[fielddata] Data too large, data for [t] would be [192/192b], which is '
    'larger than the limit of [1/1b]","bytes_wanted":192,"bytes_limit":1,"durability":"PERMANENT"}}}}'
    '}}],"caused_by":{"type":"exception","reason":"java.util.concurrent.ExecutionException: OpenSearc'
    "hException[java.util.concurrent.ExecutionException: CircuitBreakingException[[fielddata] Data to"
    "o large, data for [t] would be [192/192b], which is larger than the limit of [1/1b]]]; nested: E"
    "xecutionException[CircuitBreakingException[[fielddata] Data too large, data for [t] would be [19"
    "2/192b], which is larger than the limit of [1/1b]]]; nested: CircuitBreakingException[[fielddata"
    '] Data too large, data for [t] would be [192/192b], which is larger than the limit of [1/1b]];",'
    '"caused_by":{"type":"execution_exception","reason":"OpenSearchException[java.util.concurrent.Exe'
    "cutionException: CircuitBreakingException[[fielddata] Data too large, data for [t] would be [192"
    "/192b], which is larger than the limit of [1/1b]]]; nested: ExecutionException[CircuitBreakingEx"
    "ception[[fielddata] Data too large, data for [t] would be [192/192b], which is larger than the l"
    "imit of [1/1b]]]; nested: CircuitBreakingException[[fielddata] Data too large, data for [t] woul"
    'd be [192/192b], which is larger than the limit of [1/1b]];","caused_by":{"type":"exception","re'
    'ason":"java.util.concurrent.ExecutionException: CircuitBreakingException[[fielddata] Data too la'
    'rge, data for [t] would be [192/192b], which is larger than the limit of [1/1b]]","caused_by":{"'
    'type":"execution_exception","reason":"CircuitBreakingException[[fielddata] Data too large, data '
    'for [t] would be [192/192b], which is larger than the limit of [1/1b]]","caused_by":{"type":"cir'
    'cuit_breaking_exception","reason":"[fielddata] Data too large, data for [t] would be [192/192b],'
    ' which is larger than the limit of [1/1b]","bytes_wanted":192,"bytes_limit":1,"durability":"PERM'
    'ANENT"}}}}}},"status":500}',
)
# 429s: the node is busy (BREAKER above: the parent breaker, durability TRANSIENT, tripped by the
# node's other work), the same request fits a moment later.
TRANSIENT = (
    NULL_NODE,
    STATE_NOT_RECOVERED,
    ALL_SHARDS_GONE,
    NO_SHARD_AVAILABLE,
    UNAVAILABLE_SHARDS,
    SHARD_NODE_DISCONNECTED,
    NODE_NOT_CONNECTED,
    BREAKER,
)
REFUSED = (PARSING, NO_INDEX, NO_PIPELINE, OTHER_NULL_POINTER, FIELDDATA_BREAKER, READ_ONLY)

# Shard failures inside partial search answers during a rolling restart of the local 3-node cluster
# under a stream of searches (2026-11-28, 22,000 searches, 3 partial): each failure object as the node
# sent it, in the ``_shards`` of its 3-shard index (/tmp/stress experiment, see the session note).
FETCH_NODE_DISCONNECTED = {
    "shard": 2,
    "index": "chunks-stress-rolling",
    "node": "ijJYPLTXTuCvkyCndRd35w",
    "reason": {
        "type": "node_disconnected_exception",
        "reason": "[node-1][127.0.0.1:9311][indices:data/read/search[phase/fetch/id]] disconnected",
    },
}
CONTEXT_FREED = {
    "shard": 0,
    "index": "chunks-stress-rolling",
    "node": "dac4D6cKQlm3240VcfVQyQ",
    "reason": {
        "type": "search_context_missing_exception",
        "reason": "No search context found for id [10734]",
    },
}
CONNECTION_CLOSED = {
    "shard": 1,
    "index": "chunks-stress-rolling",
    "node": "dac4D6cKQlm3240VcfVQyQ",
    "reason": {
        "type": "node_not_connected_exception",
        "reason": "[node-2][127.0.0.1:9312] connection already closed",
    },
}
LEFT_MID_SEARCH = (FETCH_NODE_DISCONNECTED, CONTEXT_FREED, CONNECTION_CLOSED)


def partial_answer(*failures: dict[str, Any], total: int = 3) -> dict[str, Any]:
    """A search answer of a ``total``-shard index whose ``failures`` shards did not answer."""
    shards = {"total": total, "successful": total - len(failures), "skipped": 0, "failed": len(failures)}
    return {"_shards": {**shards, "failures": list(failures)}, "hits": {"hits": []}}


def parsed(answer: tuple[int, str]) -> Any:
    return json.loads(answer[1])


def raised(answer: tuple[int, str]) -> TransportError:
    """The exception opensearch-py raises for ``answer`` (its own parsing of the body)."""
    status, body = answer
    try:
        Connection()._raise_error(status, body, "application/json; charset=UTF-8")
    except TransportError as error:
        return error
    raise AssertionError(f"opensearch-py raised nothing for status {status}")
