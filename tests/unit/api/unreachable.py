"""Settings for an app that is built but never reaches a service: OpenSearch and the inference service are
a local port nothing listens on (bound, then released), so any request the app does send fails at once."""

from __future__ import annotations

import socket
from typing import Any

from control_plane.config.settings import Settings


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def unreachable_settings(**sections: dict[str, Any]) -> Settings:
    """The default settings pointed at a closed port; ``sections`` overrides fields of those sections."""
    nowhere = closed_port_url()
    base = Settings().model_dump()
    changes: dict[str, dict[str, Any]] = {"opensearch": {"url": nowhere}, "models": {"service_url": nowhere}}
    for name, values in sections.items():
        changes[name] = {**changes.get(name, {}), **values}
    return Settings.model_validate({**base, **{k: {**base[k], **v} for k, v in changes.items()}})
