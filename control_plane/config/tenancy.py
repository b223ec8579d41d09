"""Which indices belong to a tenant when tenants are separated by index (setting ``index.tenant_indices``).

A tenant's chunks live in ``<prefix>-<tenant>`` (what ingest writes by default) or in
``<prefix>-<tenant>-<suffix>`` (e.g. ``chunks-acme-pmc``): the names that tenant's OpenSearch role may
read. The rule that keeps two tenants' names apart: **a tenant name is lowercase letters, digits and
``_``** (``TENANT_NAME``; no ``-``, no capitals). Without ``-`` the tenant is exactly the part between
``<prefix>-`` and the next ``-``, so ``chunks-acme`` is not tenant ``acm``'s and ``chunks-acme-x`` is
tenant ``acme``'s only (with ``-`` allowed it could also be tenant ``acme-x``'s); without capitals the
names are valid OpenSearch index names, which must be lowercase.

A target is checked as text, one comma-separated part at a time: ``chunks-acme-*`` stays the tenant's
(every name it can match starts with ``chunks-acme-``), ``chunks-acme*``, ``chunks-*``, ``_all``,
exclusions (``-chunks-x``) and remote targets (``other:chunks-acme``) are not. An alias named like a
tenant's index is not followed: the tenant's OpenSearch role is what finally decides what it reads.
"""

from __future__ import annotations

import re
from typing import Final

from control_plane.errors import ClientError

TENANT_NAME: Final = re.compile(r"^[a-z0-9_]+$")
TENANT_NAME_RULE: Final = "lowercase letters, digits and '_' (no '-', no capitals)"


class TenantIndexError(ClientError, ValueError):
    """An index (or a tenant name) a tenant may not use while tenants are separated by index; the message
    names the index, the tenant and the names that tenant may use."""

    http_status = 403


def tenant_name_problem(tenant: str) -> str | None:
    """Why ``tenant`` cannot name indices (None: it can)."""
    if TENANT_NAME.fullmatch(tenant):
        return None
    return (
        f"tenant {tenant!r} cannot name indices: with index.tenant_indices on a tenant name must be "
        f"{TENANT_NAME_RULE}, so <prefix>-<tenant>-<suffix> belongs to one tenant only and is a valid "
        "(lowercase) index name; rename the tenant or turn index.tenant_indices off"
    )


def tenant_index(prefix: str, tenant: str) -> str:
    """The tenant's own index, ``<prefix>-<tenant>``: where ingest writes when no index is named."""
    return f"{prefix}-{tenant}"


def tenant_index_pattern(prefix: str, tenant: str) -> str:
    """Every index of the tenant as one search target: ``<prefix>-<tenant>,<prefix>-<tenant>-*``.
    TenantIndexError for a tenant name that breaks ``TENANT_NAME`` (the pattern could reach another
    tenant's indices)."""
    _check_tenant_name(tenant)
    own = tenant_index(prefix, tenant)
    return f"{own},{own}-*"


def index_belongs_to_tenant(prefix: str, tenant: str, index: str) -> bool:
    """Whether ``index`` (a name, a pattern or a comma-separated list of them) reaches only the tenant's
    indices: each part is ``<prefix>-<tenant>`` or ``<prefix>-<tenant>-<something>``. False for a
    tenant name that breaks ``TENANT_NAME`` (its indices cannot be told apart from another's)."""
    if tenant_name_problem(tenant) is not None:
        return False
    own = tenant_index(prefix, tenant)
    parts = index.split(",")
    return all(part == own or (part.startswith(f"{own}-") and len(part) > len(own) + 1) for part in parts)


def check_tenant_index(prefix: str, tenant: str, index: str) -> None:
    """TenantIndexError unless ``index`` belongs to ``tenant`` (``index_belongs_to_tenant``)."""
    _check_tenant_name(tenant)
    if index_belongs_to_tenant(prefix, tenant, index):
        return
    own = tenant_index(prefix, tenant)
    raise TenantIndexError(
        f"index {index!r} is not tenant {tenant!r}'s: with index.tenant_indices on, tenant {tenant!r} "
        f"may use only {own!r} or {own + '-<suffix>'!r} (e.g. {own + '-pmc'!r}; {own + '-*'!r} reads "
        "them all): name one of those, or leave the index out to use the tenant's own"
    )


def _check_tenant_name(tenant: str) -> None:
    problem = tenant_name_problem(tenant)
    if problem is not None:
        raise TenantIndexError(problem)
