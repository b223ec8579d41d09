"""The one classifier of transient cluster answers, on answers recorded as OpenSearch sends them."""

from __future__ import annotations

import pytest
import requests
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout
from unit.resilience.cluster_answers import (
    NO_SHARD_AVAILABLE,
    NULL_NODE,
    REFUSED,
    SHARD_NODE_DISCONNECTED,
    TRANSIENT,
    UNAVAILABLE_SHARDS,
    parsed,
    raised,
)

from control_plane.resilience.transient import (
    is_transient,
    is_transient_answer,
    is_unstarted_shard,
    is_unstarted_shard_answer,
)


@pytest.mark.parametrize("answer", TRANSIENT)
def test_a_node_leaving_or_a_shard_recovering_is_transient(answer: tuple[int, str]) -> None:
    assert is_transient_answer(answer[0], parsed(answer))  # a raw HTTP client's view
    assert is_transient(raised(answer))  # opensearch-py's


@pytest.mark.parametrize("answer", REFUSED)
def test_a_refused_request_is_not(answer: tuple[int, str]) -> None:
    assert not is_transient_answer(answer[0], parsed(answer))
    assert not is_transient(raised(answer))


def test_the_null_node_of_a_rolling_restart_is_told_from_another_null_pointer() -> None:
    assert raised(NULL_NODE).error == "null_pointer_exception"
    assert is_transient(raised(NULL_NODE))
    assert not any(is_transient(raised(answer)) for answer in REFUSED)


def test_a_shard_failure_inside_a_search_answer_is_read() -> None:
    # The top-level type is search_phase_execution_exception (500): the failed shard names the node.
    assert raised(SHARD_NODE_DISCONNECTED).error == "search_phase_execution_exception"
    assert is_transient(raised(SHARD_NODE_DISCONNECTED))


def test_only_an_unstarted_shard_says_a_write_never_ran() -> None:
    assert is_unstarted_shard(raised(NO_SHARD_AVAILABLE))
    assert is_unstarted_shard(raised(UNAVAILABLE_SHARDS))
    assert is_unstarted_shard_answer(parsed(UNAVAILABLE_SHARDS))
    assert not is_unstarted_shard(raised(NULL_NODE))
    assert not is_unstarted_shard(raised(SHARD_NODE_DISCONNECTED))
    assert not is_unstarted_shard(OpenSearchConnectionError("N/A", "refused", None))
    assert not is_unstarted_shard(ValueError("no_shard_available_action_exception"))


def test_no_connection_is_transient_and_a_timeout_is_not() -> None:
    assert is_transient(OpenSearchConnectionError("N/A", "Connection refused", None))
    assert is_transient(requests.ConnectionError("Connection refused"))
    assert is_transient(requests.ConnectTimeout("never connected"))
    assert not is_transient(ConnectionTimeout("TIMEOUT", "read timed out", None))
    assert not is_transient(requests.ReadTimeout("read timed out"))


def test_a_body_that_is_not_json_is_judged_by_its_status() -> None:
    assert is_transient_answer(502, "<html>502 Bad Gateway</html>")
    assert not is_transient_answer(500, "<html>500 Internal Server Error</html>")
    assert not is_transient(ValueError("node_disconnected_exception"))
