"""A stage tells its listener it started, then that it completed with its counts or failed with a
one-word reason (the exception goes on)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from control_plane.ingestion.stages import failure_reason, stage
from control_plane.resilience.policy import CircuitOpenError


class Heard:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def started(self, stage: str) -> None:
        self.calls.append(("started", stage))

    def completed(self, stage: str, counts: Mapping[str, Any]) -> None:
        self.calls.append(("completed", stage, dict(counts)))

    def failed(self, stage: str, reason: str, error: str) -> None:
        self.calls.append(("failed", stage, reason, error))


def test_a_stage_that_ends_well_reports_its_counts_at_the_end() -> None:
    heard, counts = Heard(), {"chunks": 0}
    with stage(heard, "load", lambda: dict(counts)):
        counts["chunks"] = 12
    assert heard.calls == [("started", "load"), ("completed", "load", {"chunks": 12})]


def test_a_failed_stage_says_why_and_the_error_goes_on() -> None:
    heard = Heard()
    with pytest.raises(CircuitOpenError), stage(heard, "load"):
        raise CircuitOpenError("bge-small", "3 failures in a row")
    assert heard.calls == [
        ("started", "load"),
        (
            "failed",
            "load",
            "circuit_open",
            "CircuitOpenError: circuit_open: model 'bge-small': 3 failures in a row",
        ),
    ]


def test_an_error_without_a_reason_is_error() -> None:
    assert failure_reason(ValueError("x")) == "error"
