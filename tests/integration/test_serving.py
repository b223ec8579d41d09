"""control_plane/serving.py: SIGTERM stops a server that is busy answering. It once did not: the signal
handler raised in the main thread, waitress's loop caught the exception inside a channel's handler
("uncaptured python exception, closing channel") and served on, so the control API ignored SIGTERM
(seen in CI). A real server process under a stream of keep-alive requests, signalled mid-stream."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

import pytest
import requests
from integration.node import REPO_ROOT
from integration.service import free_port

pytestmark = pytest.mark.integration

SERVER = """
import sys
from control_plane.serving import serve

def app(environ, start_response):
    body = b"x" * (8 << 20)  # large: the loop thread spends its time writing it out
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]

serve(app, "127.0.0.1", int(sys.argv[1]), threads=4)
print("returned", flush=True)
"""
ROUNDS = 20
CLIENTS = 6


def _hammer(url: str, until: threading.Event, answered: list[int]) -> None:
    with requests.Session() as session:
        while not until.is_set():
            try:
                answered.append(session.get(url, timeout=5).status_code)
            except requests.RequestException:
                return  # the server went away: what SIGTERM asks for


def _wait_until_up(url: str, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            requests.get(url, timeout=1)
            return
        except requests.RequestException:
            time.sleep(0.05)
    raise AssertionError(f"the server at {url} did not answer within {timeout_s} s")


@pytest.mark.parametrize("round_", range(ROUNDS))
def test_sigterm_stops_a_busy_server_and_serve_returns(round_: int) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    until = threading.Event()
    answered: list[int] = []
    clients = [threading.Thread(target=_hammer, args=(url, until, answered)) for _ in range(CLIENTS)]
    try:
        _wait_until_up(url)
        for client in clients:
            client.start()
        # The stream has started (on a loaded machine a fixed pause could end before any answer), then
        # the signal lands at a different point of it each round.
        deadline = time.monotonic() + 20
        while not answered and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3 + 0.05 * round_)
        before = len(answered)
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        out, err = server.communicate()
        raise AssertionError(f"no exit 20 s after SIGTERM; stderr:\n{err[-3000:]}") from None
    finally:
        until.set()
        for client in clients:
            if client.is_alive():
                client.join(10)
    assert before > 0, "the stream never got an answer before the signal"
    assert server.returncode == 0, err[-3000:]
    assert out.strip() == "returned"
    assert "uncaptured python exception" not in err
