"""Build an opensearch-py client from settings, and give plain HTTP sessions the same auth and TLS.

Every connection to OpenSearch goes through here: ``make_client`` for the control plane's own work, and
``configure_session`` / ``opensearch_session`` for the benchmarks that time raw HTTP requests. Both take
their auth and TLS options from one place, ``connection_security``, which reads the password file and
checks the CA bundle when called (a missing or empty file is a ConfigError naming the setting and the
path)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import requests
import urllib3
from opensearchpy import OpenSearch

from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.settings import ConfigError

PEM_CERTIFICATE = "-----BEGIN CERTIFICATE-----"


@dataclass(frozen=True)
class ConnectionSecurity:
    """How to reach the cluster: basic-auth credentials (None: none), TLS, certificate checks and the CA
    bundle to check against (None: the libraries' default trust store). The password stays out of repr."""

    auth: tuple[str, str] | None = field(default=None, repr=False)
    use_ssl: bool = False
    verify_certs: bool = True
    ca_certs: str | None = None


def connection_security(settings: OpenSearchSettings) -> ConnectionSecurity:
    """The settings' auth and TLS options, with the password read from ``password_file`` (whitespace
    stripped) and ``ca_certs`` checked to be a readable PEM file. ConfigError saying how to fix it."""
    auth = (settings.username, read_password(settings)) if settings.username else None
    ca_certs = checked_ca_certs(settings.ca_certs) if settings.ca_certs else None
    return ConnectionSecurity(
        auth=auth, use_ssl=settings.use_ssl, verify_certs=settings.verify_certs, ca_certs=ca_certs
    )


def read_password(settings: OpenSearchSettings) -> str:
    path = Path(settings.password_file)
    where = f"opensearch.password_file {settings.password_file!r} ({path.absolute()})"
    fix = (
        f"write the password of service account {settings.username!r} into it (readable by this "
        "process), or point opensearch.password_file (BIOHYBRID__OPENSEARCH__PASSWORD_FILE) at the file "
        "that holds it"
    )
    try:
        password = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"{where} cannot be read ({reason}): {fix}") from None
    if not password:
        raise ConfigError(f"{where} is empty: {fix}")
    return password


def checked_ca_certs(configured: str) -> str:
    path = Path(configured)
    where = f"opensearch.ca_certs {configured!r} ({path.absolute()})"
    fix = (
        "point opensearch.ca_certs (BIOHYBRID__OPENSEARCH__CA_CERTS) at the PEM bundle of the CA that "
        "signed the cluster's certificate, or clear it to use the default trust store"
    )
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read ({exc.strerror or exc}): {fix}") from None
    if PEM_CERTIFICATE not in text:
        raise ConfigError(f"{where} holds no PEM certificate ({PEM_CERTIFICATE} ...): {fix}")
    return str(path)


def client_options(security: ConnectionSecurity) -> dict[str, Any]:
    """opensearch-py's keyword arguments for ``security``."""
    options: dict[str, Any] = {"use_ssl": security.use_ssl, "verify_certs": security.verify_certs}
    if security.auth is not None:
        options["http_auth"] = security.auth
    if security.ca_certs is not None:
        options["ca_certs"] = security.ca_certs
    if not security.verify_certs:
        options["ssl_show_warn"] = False
    return options


POOL_MAXSIZE: Final = 16


def make_client(settings: OpenSearchSettings, retry_on_timeout: bool = True) -> OpenSearch:
    """Admin work retries a timed-out request twice; searches with their own budgets must not
    (``retry_on_timeout=False``): a retry would triple the budget and leave the abandoned request
    running. With several nodes a request that cannot connect moves on to the next node (up to one try
    per node), and a node that failed is left alone for a while. A secured cluster's credentials and
    TLS options come from ``connection_security``. Up to ``POOL_MAXSIZE`` connections per node stay
    open, so threads sharing the client (the API's request threads, the ingest's bulk writer beside its
    hash look-ups) reuse connections instead of opening one per request."""
    hosts = settings.hosts
    return OpenSearch(
        hosts=hosts,
        pool_maxsize=POOL_MAXSIZE,
        timeout=settings.timeout_s,
        retry_on_timeout=retry_on_timeout,
        max_retries=max(2, len(hosts)),
        **client_options(connection_security(settings)),
    )


def configure_session(session: requests.Session, settings: OpenSearchSettings) -> requests.Session:
    """``session`` (a requests session, or a subclass such as locust's) set up with the settings' auth
    and TLS options, for code that sends raw HTTP to OpenSearch; returns it."""
    security = connection_security(settings)
    session.auth = security.auth
    if not security.verify_certs:
        session.verify = False
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    elif security.ca_certs is not None:
        session.verify = security.ca_certs
    return session


def opensearch_session(settings: OpenSearchSettings) -> requests.Session:
    """A new requests session that talks to OpenSearch as ``make_client`` does."""
    return configure_session(requests.Session(), settings)
