"""The retry of ml-commons writes that meet a system-index shard still recovering (seen on a new cluster):
only answers saying the shard has not started (the write never ran) are retried."""

from __future__ import annotations

import pytest
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import RequestError, TransportError
from unit.resilience.cluster_answers import NULL_NODE, UNAVAILABLE_SHARDS, raised

from control_plane.mlcommons.ml_api import retry_recovering

RECOVERING = TransportError(
    503,
    "no_shard_available_action_exception",
    {"error": {"reason": "[node-2][...][.plugins-ml-connector][0]: CurrentState[RECOVERING]"}},
)


def test_the_call_is_repeated_until_the_shard_has_started() -> None:
    answers: list[BaseException | dict[str, str]] = [
        RECOVERING,
        raised(UNAVAILABLE_SHARDS),
        {"connector_id": "c1"},
    ]
    calls = []

    def create() -> dict[str, str]:
        calls.append(1)
        answer = answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer

    assert retry_recovering(create, what="create_connector", base_s=0.0) == {"connector_id": "c1"}
    assert len(calls) == 3


def _raising(error: BaseException, calls: list[int]) -> None:
    calls.append(1)
    raise error


@pytest.mark.parametrize(
    "error",
    [
        RequestError(400, "illegal_argument_exception", {}),
        OpenSearchConnectionError("N/A", "refused", None),  # the write may have landed
        raised(NULL_NODE),  # transient for a search, yet the write may have run
    ],
)
def test_another_error_reaches_the_caller_at_once(error: BaseException) -> None:
    calls: list[int] = []
    with pytest.raises(type(error)):
        retry_recovering(lambda: _raising(error, calls), what="create_connector", base_s=0.0)
    assert len(calls) == 1


def test_a_shard_that_never_starts_is_reported_after_the_last_call() -> None:
    calls: list[int] = []
    with pytest.raises(TransportError) as caught:
        retry_recovering(lambda: _raising(RECOVERING, calls), what="register_model", attempts=3, base_s=0.0)
    assert caught.value is RECOVERING
    assert len(calls) == 3
