"""Serve a WSGI app in the foreground until SIGTERM or SIGINT: waitress (a production server: a thread pool,
HTTP/1.1 keep-alive, so a client that reuses its connection pays no TCP connect per call) by default,
werkzeug's development server only when debugging.

The control API and the inference service both run through here (``python -m control_plane.api``,
``python -m control_plane.inference``, and so under `biohybrid api|service start` and systemd).
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

from waitress.server import create_server
from werkzeug.serving import make_server

from control_plane.errors import BiohybridError

log = logging.getLogger(__name__)

WsgiApp = Callable[..., Any]


class _StopRequestedError(BiohybridError):
    """Raised in the main thread by the signal handler to leave the server loop."""


def _raise_stop(signum: int, _frame: FrameType | None) -> None:
    log.info("stopping", extra={"signal": signum})
    raise _StopRequestedError


def serve(
    app: WsgiApp,
    host: str,
    port: int,
    *,
    threads: int,
    debug: bool = False,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``app`` on ``host:port`` with ``threads`` request threads until SIGTERM/SIGINT; ``ready`` gets
    the URL once the socket is bound (port 0 picks a free port)."""
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    if debug:
        dev = make_server(host, port, app, threaded=True)
        try:
            _announce(ready, host, dev.server_port, "werkzeug (development)")
            dev.serve_forever()
        except _StopRequestedError:
            pass
        finally:
            dev.server_close()
            _restore(previous)
        return
    server = ThreadedServer(app, host, port, threads)
    try:
        _announce(ready, host, server.port, f"waitress, {threads} threads")
        server.run()
    except _StopRequestedError:
        pass
    finally:
        server.close()
        _restore(previous)


class ThreadedServer:
    """waitress bound to ``host:port`` (0: a free port); ``run`` serves in the calling thread until ``close``
    (from any thread), which also closes idle keep-alive connections so ``run`` returns at once."""

    def __init__(self, app: WsgiApp, host: str, port: int, threads: int) -> None:
        self._channels: dict[int, Any] = {}
        # One host and port: a single TcpWSGIServer (its trigger and effective_port are used below).
        self._server: Any = create_server(
            app, map=self._channels, host=host, port=port, threads=threads, ident="biohybrid"
        )
        self.port = int(getattr(self._server, "effective_port", port))
        self._running = threading.Event()
        self._stopped = threading.Event()

    def run(self) -> None:
        self._running.set()
        try:
            self._server.run()
        finally:
            self._running.clear()
            self._stopped.set()

    def close(self) -> None:
        if self._running.is_set():  # the loop owns the sockets: close them from inside it
            self._server.trigger.pull_trigger(self._close_channels)
            self._stopped.wait(10)
        else:
            self._close_channels()
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)

    def _close_channels(self) -> None:
        for channel in list(self._channels.values()):
            channel.close()


def _announce(ready: Callable[[str], None] | None, host: str, port: int, kind: str) -> None:
    url = f"http://{host}:{port}"
    log.info("serving", extra={"url": url, "server": kind})
    if ready is not None:
        ready(url)


def _restore(previous: dict[signal.Signals, Any]) -> None:
    for sig, handler in previous.items():
        signal.signal(sig, handler)
