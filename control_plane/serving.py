"""Serve a WSGI app in the foreground until SIGTERM or SIGINT: waitress (a production server: a thread pool,
HTTP/1.1 keep-alive, so a client that reuses its connection pays no TCP connect per call) by default,
werkzeug's development server only when debugging.

The control API and the inference service both run through here (``python -m control_plane.api``,
``python -m control_plane.inference``, and so under `biohybrid api|service start` and systemd).
"""

from __future__ import annotations

import errno
import hmac
import logging
import os
import secrets
import signal
import socket
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import FrameType
from typing import Any, Final

import requests
from waitress.server import create_server
from werkzeug.serving import make_server

from control_plane.errors import BiohybridError

log = logging.getLogger(__name__)
CALLER_HEADER = "X-Biohybrid-Caller"
"""The header a service's callers name themselves by (the inference service keeps each within its share
of its threads): the control API sends ``api``, ingestion ``ingest``, OpenSearch's connectors
``opensearch``. A name is believed only with the caller token (``AUTH_HEADER``)."""
AUTH_HEADER: Final = "Authorization"
TOKEN_FILE_ENV: Final = "BIOHYBRID_CALLER_TOKEN_FILE"
DEFAULT_TOKEN_FILE: Final = Path(".local") / "caller-token"


def caller_token_file() -> Path:
    """Where this checkout's caller token lives: ``$BIOHYBRID_CALLER_TOKEN_FILE``, else .local/caller-token
    (beside the services' pid folders, relative to the working directory as they are)."""
    return Path(os.environ.get(TOKEN_FILE_ENV) or DEFAULT_TOKEN_FILE)


def caller_token(path: Path | None = None) -> str:
    """The secret the project's callers (the control API, ingestion, OpenSearch's connectors, which hold
    it as an ml-commons credential) send to the inference service, so a local process cannot claim their
    share by a header alone. Made on first use, readable by its owner only; every reader gets the same."""
    path = path or caller_token_file()
    try:
        return _read_token(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return _read_token(path)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(secrets.token_urlsafe(32) + "\n")
    return _read_token(path)


def _read_token(path: Path) -> str:
    token = path.read_text(encoding="ascii").strip()
    if len(token) < 16:
        raise BiohybridError(
            f"the caller token in {path} is shorter than 16 characters: delete the file "
            "and restart the inference service, then run `biohybrid models register`"
        )
    return token


def bearer(token: str) -> str:
    return f"Bearer {token}"


def token_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header carries ``token`` (compared in constant time)."""
    return header is not None and hmac.compare_digest(header.encode(), bearer(token).encode())


def caller_session(local: threading.local, caller: str) -> requests.Session:
    """This thread's HTTP session to the inference service, naming ``caller`` (``CALLER_HEADER``) with the
    caller token: one per thread, so its calls reuse a kept-alive connection; the service keeps each
    caller within its share."""
    session: requests.Session | None = getattr(local, "session", None)
    if session is None:
        session = local.session = requests.Session()
        session.headers[CALLER_HEADER] = caller
        session.headers[AUTH_HEADER] = bearer(caller_token())
    return session


class ListenError(BiohybridError):
    """The address cannot be listened on: a start-up failure the message tells how to fix."""


def _listen_error(host: str, port: int, error: OSError) -> ListenError:
    if error.errno == errno.EADDRINUSE:
        why = (
            f"port {port} is in use; `ss -ltnp 'sport = :{port}'` shows which process holds it: stop it "
            "(`biohybrid api stop`, `biohybrid service stop`) or choose another port with --port"
        )
    elif error.errno == errno.EACCES:
        why = f"no permission to listen on port {port}; choose a port above 1023 with --port"
    else:
        why = f"{error.strerror or error}; check the host ({host!r}) and --port"
    return ListenError(f"cannot listen on {host}:{port}: {why}")


WsgiApp = Callable[..., Any]
# How often the main thread looks at the signal flag, and how long it waits for the loop to end.
_SIGNAL_POLL_S = 0.2
_CLOSE_WAIT_S = 15.0


class _StopFlag:
    """Set by the SIGTERM / SIGINT handler, which does nothing else: an exception raised from a handler
    lands wherever the main thread happens to be, and waitress's loop catches it inside a channel's
    handler ("uncaptured python exception, closing channel") and serves on, so SIGTERM was lost."""

    def __init__(self) -> None:
        self.signal: int | None = None

    def request(self, signum: int, _frame: FrameType | None) -> None:
        self.signal = signum


def check_listenable(host: str, port: int) -> None:
    """Bind and release ``host:port`` once: a service that starts threads before it serves (the inference
    service loads its models) learns that the port is taken before anything is running."""
    try:
        with socket.create_server((host, port)):
            pass
    except OSError as error:
        raise _listen_error(host, port, error) from error


def serve(
    app: WsgiApp,
    host: str,
    port: int,
    *,
    threads: int,
    debug: bool = False,
) -> None:
    """Serve ``app`` on ``host:port`` (0: a free port) with ``threads`` request threads until
    SIGTERM/SIGINT. The server loop runs in a thread of its own; the main thread waits for the signal
    flag, then closes the server from outside its loop (the cross-thread close both servers support)."""
    server = _DevelopmentServer(app, host, port) if debug else ThreadedServer(app, host, port, threads)
    kind = "werkzeug (development)" if debug else f"waitress, {threads} threads"
    stop = _StopFlag()
    failure: list[BaseException] = []

    def run() -> None:
        try:
            server.run()
        except BaseException as exc:  # handed to the main thread, which raises it
            failure.append(exc)

    previous = {sig: signal.signal(sig, stop.request) for sig in (signal.SIGTERM, signal.SIGINT)}
    loop = threading.Thread(target=run, name="server-loop", daemon=True)
    try:
        log.info("serving", extra={"url": f"http://{host}:{server.port}", "server": kind})
        loop.start()
        while loop.is_alive() and stop.signal is None:
            loop.join(_SIGNAL_POLL_S)
        if stop.signal is not None:
            log.info("stopping", extra={"signal": stop.signal})
    finally:
        server.close()
        loop.join(_CLOSE_WAIT_S)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failure:
        raise failure[0]


class _DevelopmentServer:
    """werkzeug's threaded development server behind the same run / close calls (``--debug`` only)."""

    def __init__(self, app: WsgiApp, host: str, port: int) -> None:
        try:
            self._server = make_server(host, port, app, threaded=True)
        except OSError as error:
            raise _listen_error(host, port, error) from error
        self.port = int(self._server.server_port)
        self._serving = False

    def run(self) -> None:
        self._serving = True
        try:
            self._server.serve_forever()
        finally:
            self._serving = False

    def close(self) -> None:
        if self._serving:
            self._server.shutdown()  # from another thread: waits for serve_forever to return
        self._server.server_close()


def client_disconnected(environ: Mapping[str, Any]) -> Callable[[], bool] | None:
    """A request's check that its client closed the connection: waitress's, which ``ThreadedServer``
    turns on (``channel_request_lookahead``); None under any other server (Flask's test client)."""
    check = environ.get("waitress.client_disconnected")
    return check if callable(check) else None


class ThreadedServer:
    """waitress bound to ``host:port`` (0: a free port); ``run`` serves in the calling thread until ``close``
    (from any thread), which also closes idle keep-alive connections so ``run`` returns at once."""

    def __init__(self, app: WsgiApp, host: str, port: int, threads: int) -> None:
        self._channels: dict[int, Any] = {}
        # One host and port: a single TcpWSGIServer (its trigger and effective_port are used below).
        try:
            # channel_request_lookahead 1: waitress keeps reading a connection while its request runs, so
            # it sees the client close and gives the app ``environ["waitress.client_disconnected"]``
            # (the inference service sheds a gone caller's work: control_plane/inference/batching.py).
            self._server: Any = create_server(
                app,
                map=self._channels,
                host=host,
                port=port,
                threads=threads,
                # waitress stops accepting past 100 connections by default; a client that keeps one
                # connection per request thread it may use (ml-commons does) needs room beyond them
                connection_limit=max(100, 2 * threads),
                ident="biohybrid",
                channel_request_lookahead=1,
            )
        except OSError as error:
            raise _listen_error(host, port, error) from error
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
            try:
                self._server.trigger.pull_trigger(self._close_channels)
            except OSError:  # its trigger is already closed (CI saw EBADF): nothing left to wake
                log.warning("server trigger closed before close(); closing its channels here")
                self._close_channels()
            self._stopped.wait(10)
        else:
            self._close_channels()
        self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=5)

    def _close_channels(self) -> None:
        for channel in list(self._channels.values()):
            channel.close()
