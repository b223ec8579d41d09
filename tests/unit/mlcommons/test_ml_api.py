"""The retry of ml-commons writes that meet a system-index shard still recovering (seen on a new cluster)."""

from __future__ import annotations

import pytest
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import RequestError, TransportError

from control_plane.mlcommons.ml_api import is_recovering_shard, retry_recovering

RECOVERING = TransportError(
    503,
    "no_shard_available_action_exception",
    {"error": {"reason": "[node-2][...][.plugins-ml-connector][0]: CurrentState[RECOVERING]"}},
)


def test_a_shard_still_starting_is_transient_and_a_refused_request_is_not() -> None:
    assert is_recovering_shard(RECOVERING)
    assert is_recovering_shard(TransportError(503, "unavailable_shards_exception", {}))
    assert not is_recovering_shard(TransportError(500, "no_shard_available_action_exception", {}))
    assert not is_recovering_shard(TransportError(503, "circuit_breaking_exception", {}))
    assert not is_recovering_shard(RequestError(400, "illegal_argument_exception", {}))
    assert not is_recovering_shard(ValueError("no_shard_available_action_exception"))


def test_the_call_is_repeated_until_the_shard_has_started() -> None:
    answers: list[BaseException | dict[str, str]] = [RECOVERING, RECOVERING, {"connector_id": "c1"}]
    calls = []

    def create() -> dict[str, str]:
        calls.append(1)
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    assert retry_recovering(create, what="create_connector", base_s=0.0) == {"connector_id": "c1"}
    assert len(calls) == 3


def test_another_error_reaches_the_caller_at_once() -> None:
    calls = []

    def refused() -> None:
        calls.append(1)
        raise RequestError(400, "illegal_argument_exception", {})

    with pytest.raises(RequestError):
        retry_recovering(refused, what="create_connector", base_s=0.0)
    assert len(calls) == 1

    def unreachable() -> None:
        raise OpenSearchConnectionError("N/A", "refused", None)

    with pytest.raises(OpenSearchConnectionError):
        retry_recovering(unreachable, what="create_connector", base_s=0.0)


def test_a_shard_that_never_starts_is_reported_once_the_wait_is_spent() -> None:
    calls = []

    def recovering() -> None:
        calls.append(1)
        raise RECOVERING

    with pytest.raises(TransportError) as raised:
        retry_recovering(recovering, what="register_model", wait_s=0.05, base_s=0.01)
    assert raised.value is RECOVERING
    assert 2 <= len(calls) <= 4  # 0.01 + 0.02 s waited; the next 0.04 s wait would pass the deadline
