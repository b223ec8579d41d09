"""Which index a tenant's search reads: the one it names, else the shared pattern or, with
``index.tenant_indices``, its own indices (every search path resolves it here: the API, the console,
evaluations)."""

from __future__ import annotations

from control_plane.config.settings import Settings
from control_plane.config.tenancy import check_tenant_index, tenant_index_pattern


def search_index(settings: Settings, tenant_id: str, index: str | None) -> str:
    """What a search by ``tenant_id`` reads: the named ``index``, else ``search.index_pattern``. With
    ``index.tenant_indices`` on: the tenant's own indices (``<prefix>-<tenant>,<prefix>-<tenant>-*``), and
    a named index that is not the tenant's is refused (TenantIndexError, HTTP 403). Either way the
    request also filters on the tenant_id field (a second guard)."""
    if not settings.index.tenant_indices:
        return index or settings.search.index_pattern
    if not index:
        return tenant_index_pattern(settings.index.prefix, tenant_id)
    check_tenant_index(settings.index.prefix, tenant_id, index)
    return index


def searches_tenant_pattern(settings: Settings, tenant_id: str, index: str) -> bool:
    """Whether ``index`` is the tenant's own-indices pattern: a tenant may have no ``<prefix>-<tenant>``
    index (only ``-<suffix>`` ones, or none yet), so such a search ignores a missing name
    (``ignore_unavailable``) instead of failing with index_not_found."""
    return settings.index.tenant_indices and index == tenant_index_pattern(settings.index.prefix, tenant_id)
