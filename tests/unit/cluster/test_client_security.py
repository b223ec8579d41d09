"""The client factory on a secured cluster: what opensearch-py's transport and its connections carry
(basic auth, TLS, certificate checks, the CA bundle), the password file read and stripped, the same
options on a plain requests session, and each configuration mistake refused with how to fix it. No
request is sent: the client is built and inspected."""

from __future__ import annotations

import base64
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import certifi
import pytest
from opensearchpy.connection.base import Connection

from control_plane.cluster.client import (
    ConnectionSecurity,
    connection_security,
    make_client,
    opensearch_session,
)
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.settings import ConfigError


@pytest.fixture
def password_file(tmp_path: Path) -> Path:
    path = tmp_path / "password"
    path.write_text("  s3cret-Pa55 \n\n", encoding="utf-8")
    return path


@pytest.fixture
def ca_file(tmp_path: Path) -> Path:
    path = tmp_path / "root-ca.pem"
    shutil.copyfile(certifi.where(), path)  # a real PEM bundle
    return path


@pytest.fixture(autouse=True)
def _keep_warning_filters() -> Iterator[None]:
    """verify_certs false turns urllib3's insecure-request warning off process-wide: undo it."""
    with warnings.catch_warnings():
        yield


def _secured(password_file: Path, **fields: Any) -> OpenSearchSettings:
    return OpenSearchSettings(
        url="https://os.example.org:9200",
        username="biohybrid_control_plane",
        password_file=str(password_file),
        **fields,
    )


def _connections(client: Any) -> list[Any]:
    pool = client.transport.connection_pool
    return list(getattr(pool, "connections", [getattr(pool, "connection", None)]))


def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def test_an_unsecured_cluster_gets_no_auth_and_no_tls() -> None:
    client = make_client(OpenSearchSettings(url="http://127.0.0.1:9200"))
    kwargs = client.transport.kwargs
    assert "http_auth" not in kwargs and "ca_certs" not in kwargs and "ssl_show_warn" not in kwargs
    assert kwargs["use_ssl"] is False
    (connection,) = _connections(client)
    assert connection.host == "http://127.0.0.1:9200"
    assert "authorization" not in connection.headers


def test_the_transport_carries_auth_tls_and_the_ca_bundle(password_file: Path, ca_file: Path) -> None:
    client = make_client(_secured(password_file, ca_certs=str(ca_file)))
    kwargs = client.transport.kwargs
    assert kwargs["http_auth"] == ("biohybrid_control_plane", "s3cret-Pa55")  # read and stripped
    assert kwargs["use_ssl"] is True
    assert kwargs["verify_certs"] is True
    assert kwargs["ca_certs"] == str(ca_file)
    assert "ssl_show_warn" not in kwargs  # warnings stay on while certificates are checked
    (connection,) = _connections(client)
    assert connection.host == "https://os.example.org:9200"
    assert connection.use_ssl is True
    assert connection.headers["authorization"] == _basic("biohybrid_control_plane", "s3cret-Pa55")
    assert connection.pool.cert_reqs == "CERT_REQUIRED"
    assert connection.pool.ca_certs == str(ca_file)


def test_every_node_gets_the_credentials(password_file: Path) -> None:
    urls = ["https://os-1:9200", "https://os-2:9200", "https://os-3:9200"]
    client = make_client(_secured(password_file, urls=urls))
    connections = _connections(client)
    assert sorted(c.host for c in connections) == urls
    for connection in connections:
        assert connection.headers["authorization"] == _basic("biohybrid_control_plane", "s3cret-Pa55")
        assert connection.pool.cert_reqs == "CERT_REQUIRED"


def test_without_ca_certs_the_default_trust_store_checks_the_certificate(password_file: Path) -> None:
    client = make_client(_secured(password_file))
    assert "ca_certs" not in client.transport.kwargs
    (connection,) = _connections(client)
    assert connection.pool.cert_reqs == "CERT_REQUIRED"
    # opensearch-py's default: $SSL_CERT_FILE (or $SSL_CERT_DIR) when set, else certifi's bundle.
    assert connection.pool.ca_certs == Connection.default_ca_certs()


def test_verify_certs_false_turns_checks_and_their_warning_off(password_file: Path) -> None:
    client = make_client(_secured(password_file, verify_certs=False))
    kwargs = client.transport.kwargs
    assert kwargs["verify_certs"] is False
    assert kwargs["ssl_show_warn"] is False
    (connection,) = _connections(client)
    assert connection.pool.cert_reqs == "CERT_NONE"


def test_a_relative_password_file_is_read_from_the_working_folder(
    password_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(password_file.parent)
    security = connection_security(_secured(Path(password_file.name)))
    assert security.auth == ("biohybrid_control_plane", "s3cret-Pa55")


def test_the_password_stays_out_of_repr(password_file: Path) -> None:
    security = connection_security(_secured(password_file))
    assert "s3cret" not in repr(security)
    assert security == ConnectionSecurity(
        auth=("biohybrid_control_plane", "s3cret-Pa55"), use_ssl=True, verify_certs=True, ca_certs=None
    )


def test_a_requests_session_gets_the_same_options(password_file: Path, ca_file: Path) -> None:
    session = opensearch_session(_secured(password_file, ca_certs=str(ca_file)))
    assert session.auth == ("biohybrid_control_plane", "s3cret-Pa55")
    assert session.verify == str(ca_file)
    assert opensearch_session(_secured(password_file)).verify is True
    assert opensearch_session(_secured(password_file, verify_certs=False)).verify is False
    plain = opensearch_session(OpenSearchSettings())
    assert plain.auth is None and plain.verify is True


def test_a_missing_password_file_names_the_setting_the_path_and_the_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    with pytest.raises(ConfigError) as refused:
        make_client(_secured(missing))
    assert str(refused.value) == (
        f"opensearch.password_file {str(missing)!r} ({missing}) cannot be read (No such file or "
        "directory): write the password of service account 'biohybrid_control_plane' into it (readable "
        "by this process), or point opensearch.password_file (BIOHYBRID__OPENSEARCH__PASSWORD_FILE) at "
        "the file that holds it"
    )


@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_an_empty_password_file_is_refused(tmp_path: Path, content: str) -> None:
    empty = tmp_path / "password"
    empty.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"opensearch\.password_file '.*password' \(.*\) is empty: write"):
        make_client(_secured(empty))


def test_a_folder_is_no_password_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"opensearch\.password_file .* cannot be read \(Is a directory\)"):
        make_client(_secured(tmp_path))


def test_a_password_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    binary = tmp_path / "password"
    binary.write_bytes(b"\xff\xfe\x00secret")
    with pytest.raises(ConfigError, match=r"opensearch\.password_file .* cannot be read \(.*utf-8.*\)"):
        make_client(_secured(binary))


def test_a_missing_ca_bundle_names_the_setting_the_path_and_the_fix(
    password_file: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "root-ca.pem"
    with pytest.raises(ConfigError) as refused:
        make_client(_secured(password_file, ca_certs=str(missing)))
    assert str(refused.value) == (
        f"opensearch.ca_certs {str(missing)!r} ({missing}) cannot be read (No such file or directory): "
        "point opensearch.ca_certs (BIOHYBRID__OPENSEARCH__CA_CERTS) at the PEM bundle of the CA that "
        "signed the cluster's certificate, or clear it to use the default trust store"
    )


def test_a_ca_file_without_a_certificate_is_refused(password_file: Path, tmp_path: Path) -> None:
    key_only = tmp_path / "root-ca.key"
    key_only.write_text("-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"opensearch\.ca_certs .* holds no PEM certificate"):
        make_client(_secured(password_file, ca_certs=str(key_only)))


def test_a_ca_bundle_is_checked_without_credentials_too(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"opensearch\.ca_certs"):
        make_client(OpenSearchSettings(url="https://os:9200", ca_certs=str(tmp_path / "none.pem")))
