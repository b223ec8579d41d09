"""A caller that leaves: a POST sent over a raw connection that is closed unread, as a client that hung
up or ml-commons past its read timeout does (the servers' caller-gone checks are tested with it)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Mapping
from typing import Any


def post_and_hang_up(
    url: str, path: str, body: Any, headers: Mapping[str, str] | None = None, after_s: float = 0.0
) -> None:
    """POST ``body`` as JSON to ``url`` + ``path`` and close the connection ``after_s`` later, unread."""
    host, port = url.removeprefix("http://").split(":")
    payload = json.dumps(body).encode()
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
    ]
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + payload)
        time.sleep(after_s)
