"""API keys: each maps to a tenant and a role. Keys are compared by SHA-256 (configuration holds only
hashes) in constant time; neither the key nor its hash is ever logged."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from control_plane.config.api_settings import ApiKey, KeyLimits
from control_plane.errors import ClientError

Role = Literal["search", "admin"]
# What each role may do: admin includes search.
ROLE_GRANTS: Mapping[str, frozenset[str]] = {
    "search": frozenset({"search"}),
    "admin": frozenset({"search", "admin"}),
}


class AuthError(ClientError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.http_status = status


@dataclass(frozen=True)
class Principal:
    tenant: str
    role: str
    name: str
    key_id: str = ""
    """The key's SHA-256 prefix: what its limits are counted by (never the key)."""
    limits: KeyLimits | None = None

    def require(self, needed: Role) -> None:
        if needed not in ROLE_GRANTS.get(self.role, frozenset()):
            raise AuthError(403, f"this endpoint needs the {needed!r} role; the key has {self.role!r}")


def key_sha256(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def presented_key(headers: Mapping[str, str]) -> str | None:
    """The key from ``Authorization: Bearer <key>`` or ``X-API-Key: <key>`` (names case-insensitive)."""
    lowered = {name.lower(): value for name, value in headers.items()}
    authorization = lowered.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return lowered.get("x-api-key") or None


def authenticate(headers: Mapping[str, str], keys: Sequence[ApiKey]) -> Principal:
    key = presented_key(headers)
    if key is None:
        raise AuthError(401, "missing API key: send 'Authorization: Bearer <key>' or 'X-API-Key: <key>'")
    digest = key_sha256(key)
    for entry in keys:
        if hmac.compare_digest(digest, entry.sha256):
            return Principal(
                tenant=entry.tenant,
                role=entry.role,
                name=entry.name or entry.tenant,
                key_id=entry.sha256[:16],
                limits=entry.limits,
            )
    raise AuthError(401, "unknown API key")
