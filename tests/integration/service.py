"""Run the project's inference service (real ONNX models) as a subprocess on a free port."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_service(timeout_s: float = 120.0) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "control_plane.inference", "--port", str(port), "--log-format", "json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"inference service exited: {process.stderr.read().decode()[-3000:]}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(f"{url}/ready", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError(f"inference service at {url} not ready after {timeout_s}s")
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)
