"""Run the app: in the foreground on the production server (``serve``: waitress through
control_plane/serving.py, werkzeug's development server with ``debug``) or in a thread (tests, on waitress).

Threads suit this service: request threads only validate and wait on a model queue, the models run in
their own worker threads, and onnxruntime releases the GIL while it computes.
"""

from __future__ import annotations

import logging
import threading
from types import TracebackType

from control_plane.inference.app import Loading, create_app
from control_plane.inference.callers import CallerLimiter
from control_plane.inference.config import ServiceConfig
from control_plane.inference.host import ModelHost
from control_plane.models.artifacts import check_artifact_present
from control_plane.models.manifest import ManifestError, load_manifest
from control_plane.serving import ThreadedServer, check_listenable
from control_plane.serving import serve as serve_app

log = logging.getLogger(__name__)


def serve(config: ServiceConfig | None = None) -> int:
    """Serve until SIGINT or SIGTERM; models load in the background (watch /ready). Returns an exit code."""
    config = config or ServiceConfig()
    preflight(config)
    app = create_app(config, load="background")
    host: ModelHost = app.extensions["biohybrid.host"]
    log.info("models", extra={"models": list(host.states)})
    try:
        serve_app(app, config.host, config.port, threads=config.http_threads, debug=config.debug)
    finally:
        host.stop()
        log.info("stopped")
    return 0


def preflight(config: ServiceConfig) -> None:
    """What would fail every request, checked before the port is taken (models load in the background, so
    a failure there only shows on /ready): the port free, the manifest, each model's name and role, its
    files present."""
    check_listenable(config.host, config.port)
    manifest = load_manifest(config.manifest)
    for role, names in (
        ("dense", config.dense_models),
        ("sparse", config.sparse_models),
        ("rerank", config.rerank_models),
    ):
        for name in names:
            spec = manifest.model(name)
            if spec.role != role:
                raise ManifestError(f"model '{name}' is a {spec.role} model, not {role} (--{role} {name})")
            check_artifact_present(manifest, spec)


class BackgroundServer:
    """The production server on ``config.port`` (0: a free port) in a daemon thread; a context manager."""

    def __init__(self, config: ServiceConfig, load: Loading = "sync") -> None:
        app = create_app(config, load=load)
        self.host: ModelHost = app.extensions["biohybrid.host"]
        self.callers: CallerLimiter = app.extensions["biohybrid.callers"]
        self._server = ThreadedServer(app, config.host, config.port, config.http_threads)
        self.url = f"http://{config.host}:{self._server.port}"
        self._thread = threading.Thread(target=self._server.run, name="inference-server", daemon=True)

    def __enter__(self) -> BackgroundServer:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._server.close()
        self._thread.join(10)
        self.host.stop()
