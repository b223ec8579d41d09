"""Run the app on werkzeug's threaded WSGI server: in the foreground (``serve``) or in a thread (tests).

Threads suit this service: request threads only validate and wait on a model queue, the models run in
their own worker threads, and onnxruntime releases the GIL while it computes.
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType, TracebackType

from werkzeug.serving import BaseWSGIServer, make_server

from control_plane.inference.app import Loading, create_app
from control_plane.inference.config import ServiceConfig
from control_plane.inference.host import ModelHost

log = logging.getLogger(__name__)


def _server(config: ServiceConfig, load: Loading) -> tuple[BaseWSGIServer, ModelHost]:
    app = create_app(config, load=load)
    server = make_server(config.host, config.port, app, threaded=True)
    host: ModelHost = app.extensions["biohybrid.host"]
    return server, host


def serve(config: ServiceConfig | None = None) -> int:
    """Serve until SIGINT or SIGTERM; models load in the background (watch /ready). Returns an exit code."""
    config = config or ServiceConfig()
    server, host = _server(config, "background")

    def stop(signum: int, _frame: FrameType | None) -> None:
        log.info("stopping", extra={"signal": signum})
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "serving", extra={"url": f"http://{config.host}:{server.server_port}", "models": list(host.states)}
    )
    try:
        server.serve_forever()
    finally:
        host.stop()
        server.server_close()
        log.info("stopped")
    return 0


class BackgroundServer:
    """The real threaded server on ``config.port`` (0: a free port) in a daemon thread; a context manager."""

    def __init__(self, config: ServiceConfig, load: Loading = "sync") -> None:
        self._server, self.host = _server(config, load)
        self.url = f"http://{config.host}:{self._server.server_port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="inference-server", daemon=True
        )

    def __enter__(self) -> BackgroundServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._thread.join(10)
        self.host.stop()
        self._server.server_close()
