"""The one classifier of transient cluster answers, on answers recorded as OpenSearch sends them."""

from __future__ import annotations

import pytest
import requests
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import ConnectionTimeout
from opensearchpy.helpers import ScanError
from unit.resilience.cluster_answers import (
    BREAKER,
    FIELDDATA_BREAKER,
    LEFT_MID_SEARCH,
    NO_SHARD_AVAILABLE,
    NULL_NODE,
    PARSING,
    REFUSED,
    SHARD_NODE_DISCONNECTED,
    TRANSIENT,
    UNAVAILABLE_SHARDS,
    parsed,
    partial_answer,
    raised,
)

from control_plane.resilience.transient import (
    is_transient,
    is_transient_answer,
    is_transient_item,
    is_transient_partial,
    is_unstarted_shard,
    is_unstarted_shard_answer,
    item_status,
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


def test_a_busy_node_is_transient_and_a_breaker_the_request_trips_alone_is_not() -> None:
    # 429: the parent breaker tripped by the node's other work (durability TRANSIENT).
    assert is_transient(raised(BREAKER))
    # 500: the fielddata breaker (durability PERMANENT), nested four causes deep in a shard failure.
    assert raised(FIELDDATA_BREAKER).error == "search_phase_execution_exception"
    assert not is_transient(raised(FIELDDATA_BREAKER))


@pytest.mark.parametrize("failure", LEFT_MID_SEARCH, ids=lambda f: f["reason"]["type"])
def test_a_search_short_of_a_shard_whose_node_left_mid_search_is_transient(
    failure: dict[str, object],
) -> None:
    assert is_transient_partial(partial_answer(failure))


def test_a_partial_answer_is_transient_only_when_every_failure_is_a_node_leaving() -> None:
    no_copy = {"shard": 0, "index": "chunks-solo", "reason": parsed(NO_SHARD_AVAILABLE)["error"]}
    refused = {"shard": 1, "index": "chunks-solo", "reason": parsed(PARSING)["error"]}
    assert not is_transient_partial(partial_answer(no_copy))  # no copy answers a moment later either
    assert not is_transient_partial(partial_answer(LEFT_MID_SEARCH[0], refused))
    assert is_transient_partial(partial_answer(*LEFT_MID_SEARCH))
    assert not is_transient_partial(partial_answer())  # a whole answer
    # failed without the failures listed: nothing says why, so nothing is assumed
    assert not is_transient_partial({"_shards": {"total": 3, "successful": 2, "failed": 1}})
    assert not is_transient_partial({"hits": {"hits": []}})


def test_a_scroll_that_lost_shards_is_transient() -> None:
    assert is_transient(
        ScanError("scroll", "Scroll request has only succeeded on 2 (skipped 0) shards out of 3.")
    )


@pytest.mark.parametrize(
    ("outcome", "status"),
    [({"status": 503}, 503), ({"status": "429"}, 429), ({"status": "N/A"}, 0), ({}, 0)],
)
def test_a_bulk_items_status_is_read_and_a_missing_answer_is_zero(
    outcome: dict[str, object], status: int
) -> None:
    assert item_status(outcome) == status


@pytest.mark.parametrize("answer", TRANSIENT)
def test_a_bulk_item_refused_for_the_clusters_trouble_is_transient(answer: tuple[int, str]) -> None:
    assert is_transient_item({"status": answer[0], "error": parsed(answer)["error"]})


@pytest.mark.parametrize("answer", REFUSED)
def test_a_bulk_item_refused_for_itself_is_not(answer: tuple[int, str]) -> None:
    assert not is_transient_item({"status": answer[0], "error": parsed(answer)["error"]})


def test_a_bulk_item_with_no_answer_is_transient() -> None:
    # opensearch-py's bulk helper with raise_on_exception=False: the status "N/A", the error a string.
    assert is_transient_item({"status": "N/A", "error": "ConnectionError(Connection refused)"})
