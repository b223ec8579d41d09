import stat
import threading
from pathlib import Path

import pytest

from control_plane.errors import BiohybridError
from control_plane.serving import (
    AUTH_HEADER,
    CALLER_HEADER,
    TOKEN_FILE_ENV,
    caller_session,
    caller_token,
    token_matches,
)


def test_the_caller_token_is_made_once_readable_by_its_owner_alone(tmp_path: Path) -> None:
    path = tmp_path / "state" / "caller-token"
    token = caller_token(path)
    assert len(token) >= 32 and caller_token(path) == token  # every reader gets the same
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_token_file_made_by_hand_too_short_says_how_to_fix_it(tmp_path: Path) -> None:
    path = tmp_path / "caller-token"
    path.write_text("short\n")
    with pytest.raises(BiohybridError, match="delete the file"):
        caller_token(path)


def test_only_the_exact_bearer_token_matches() -> None:
    token = "s" * 43
    assert token_matches(f"Bearer {token}", token)
    assert not token_matches(None, token)
    assert not token_matches(token, token)  # the scheme is part of it
    assert not token_matches(f"Bearer {token}x", token)


def test_a_callers_session_names_it_and_carries_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TOKEN_FILE_ENV, str(tmp_path / "caller-token"))
    session = caller_session(threading.local(), "ingest")
    assert session.headers[CALLER_HEADER] == "ingest"
    assert token_matches(str(session.headers[AUTH_HEADER]), caller_token())
