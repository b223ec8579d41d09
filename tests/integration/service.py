"""Run the project's inference service (real ONNX models) on a free port, through the same
background-process code `biohybrid service start|stop` uses."""

from __future__ import annotations

import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from control_plane.inference import daemon


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_service(timeout_s: float = 120.0) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as state:
        state_dir = Path(state)
        url, _ = daemon.start(free_port(), state_dir=state_dir, timeout_s=timeout_s)
        try:
            yield url
        finally:
            daemon.stop(state_dir)
