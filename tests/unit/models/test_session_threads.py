"""$BIOHYBRID_ORT_THREADS: the default intra-op thread count of every ONNX session that asks for 0."""

from __future__ import annotations

import pytest

from control_plane.models.runtime import THREADS_ENV_VAR, session_threads


def test_unset_or_blank_means_onnx_runtimes_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_ENV_VAR, raising=False)
    assert session_threads() == 0
    monkeypatch.setenv(THREADS_ENV_VAR, " ")
    assert session_threads() == 0


def test_a_number_is_taken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV_VAR, "1")
    assert session_threads() == 1


@pytest.mark.parametrize("raw", ["one", "-1", "1.5"])
def test_anything_else_is_refused_with_the_variable_named(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(THREADS_ENV_VAR, raw)
    with pytest.raises(ValueError, match="BIOHYBRID_ORT_THREADS must be a whole number"):
        session_threads()
