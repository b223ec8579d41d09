"""Settings of the control API over the faulty inference service, with a search and an admin key."""

from __future__ import annotations

from control_plane.api.auth import key_sha256
from control_plane.config.api_settings import ApiKey
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings

SEARCH_KEY, ADMIN_KEY = "resilience-search-s3cr3t", "resilience-admin-s3cr3t"
TENANT = "resilience"


def api_settings(service_url: str, **environ: str) -> Settings:
    """The local settings over ``service_url`` with a search and an admin key of TENANT; ``environ``:
    more BIOHYBRID__* overrides."""
    settings = load_settings(LOCAL_FILE, environ={"BIOHYBRID__MODELS__SERVICE_URL": service_url, **environ})
    keys = (
        ApiKey(sha256=key_sha256(SEARCH_KEY), tenant=TENANT, role="search", name="search"),
        ApiKey(sha256=key_sha256(ADMIN_KEY), tenant=TENANT, role="admin", name="admin"),
    )
    return settings.model_copy(update={"api": settings.api.model_copy(update={"keys": keys})})
