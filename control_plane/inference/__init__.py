"""The model inference service ml-commons' HTTP connectors call (dense, sparse, similarity).

Entry points: :func:`serve` (blocking, for a CLI or a systemd unit), :func:`create_app` (a Flask app for
any WSGI server or tests), and ``python -m control_plane.inference``.
"""

from control_plane.inference.app import create_app
from control_plane.inference.config import ServiceConfig
from control_plane.inference.server import BackgroundServer, serve

__all__ = ["BackgroundServer", "ServiceConfig", "create_app", "serve"]
