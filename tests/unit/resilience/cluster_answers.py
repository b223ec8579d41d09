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
TRANSIENT = (
    NULL_NODE,
    STATE_NOT_RECOVERED,
    ALL_SHARDS_GONE,
    NO_SHARD_AVAILABLE,
    UNAVAILABLE_SHARDS,
    SHARD_NODE_DISCONNECTED,
    NODE_NOT_CONNECTED,
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
REFUSED = (PARSING, NO_INDEX, NO_PIPELINE, OTHER_NULL_POINTER, BREAKER, READ_ONLY)


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
