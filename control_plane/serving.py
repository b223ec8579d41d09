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
) -> None:
    """Serve ``app`` on ``host:port`` (0: a free port) with ``threads`` request threads until
    SIGTERM/SIGINT."""
    server = _DevelopmentServer(app, host, port) if debug else ThreadedServer(app, host, port, threads)
    kind = "werkzeug (development)" if debug else f"waitress, {threads} threads"
    previous = {sig: signal.signal(sig, _raise_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        log.info("serving", extra={"url": f"http://{host}:{server.port}", "server": kind})
        server.run()
    except _StopRequestedError:
        pass
    finally:
        server.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class _DevelopmentServer:
    """werkzeug's threaded development server behind the same run / close calls (``--debug`` only)."""

    def __init__(self, app: WsgiApp, host: str, port: int) -> None:
        self._server = make_server(host, port, app, threaded=True)
        self.port = int(self._server.server_port)

    def run(self) -> None:
        self._server.serve_forever()

    def close(self) -> None:
        self._server.server_close()


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
