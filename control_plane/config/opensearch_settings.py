"""Settings ``opensearch``: where the cluster's nodes are and how the control plane authenticates to
them (TLS, HTTP basic auth)."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from control_plane.config.strict import StrictSettings


class OpenSearchSettings(StrictSettings):
    """Where the cluster is and how the control plane authenticates to it (a secured cluster: TLS and
    HTTP basic auth)."""

    url: str = Field("http://127.0.0.1:9200", description="the node's HTTP address (when urls is empty)")
    urls: list[str] = Field(
        default_factory=list,
        description="every node a client may send to (a cluster: each node's HTTP address); a client spreads "
        "requests over them and moves on from one that stops answering; empty: url alone",
    )
    timeout_s: float = Field(30, gt=0, description="request timeout of the control plane's clients")
    cluster_name: str = Field(
        "biohybrid",
        description="the cluster's name (the Ansible role's); the test fixture refuses to reuse a node of "
        "another cluster",
    )
    username: str = Field(
        "",
        description='the control plane\'s service account on a secured cluster ("": no auth); needs '
        "password_file",
    )
    password_file: str = Field(
        "",
        description="the file holding the service account's password, read when a client is built "
        "(whitespace stripped; relative paths are from the working folder)",
    )
    ca_certs: str = Field(
        "",
        description="PEM bundle of the CA that signed the cluster's certificate (\"\": the client libraries' "
        "default trust store: $SSL_CERT_FILE, or $REQUESTS_CA_BUNDLE for raw HTTP, when set, else "
        "certifi's bundle)",
    )
    verify_certs: bool = Field(
        True, description="check the cluster's certificate (false only for a throwaway node)"
    )

    @field_validator("username", "password_file", "ca_certs", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        """An empty ``BIOHYBRID__OPENSEARCH__USERNAME=`` (YAML null) is "", a number its text."""
        if value is None:
            return ""
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @model_validator(mode="after")
    def _security_is_consistent(self) -> OpenSearchSettings:
        if self.username and not self.password_file:
            raise ValueError(
                f"opensearch.username is {self.username!r} but opensearch.password_file is empty: set "
                "password_file to a file holding that account's password (or "
                "BIOHYBRID__OPENSEARCH__PASSWORD_FILE), or clear username for a cluster without auth"
            )
        if self.password_file and not self.username:
            raise ValueError(
                f"opensearch.password_file is {self.password_file!r} but opensearch.username is empty: "
                "set username to the service account the password belongs to (or "
                "BIOHYBRID__OPENSEARCH__USERNAME), or clear password_file for a cluster without auth"
            )
        if self.ca_certs and not self.verify_certs:
            raise ValueError(
                f"opensearch.ca_certs is {self.ca_certs!r} but opensearch.verify_certs is false, so it "
                "would never be used: set verify_certs true (recommended) or clear ca_certs"
            )
        schemes = {self.scheme(host) for host in self.hosts}
        if len(schemes) > 1:
            raise ValueError(
                f"opensearch urls mix http and https ({', '.join(self.hosts)}): give every node "
                "the same scheme (https on a secured cluster)"
            )
        return self

    @property
    def hosts(self) -> list[str]:
        return list(self.urls) or [self.url]

    @property
    def use_ssl(self) -> bool:
        """Whether the nodes are reached over TLS (their URLs are https://)."""
        return all(self.scheme(host) == "https" for host in self.hosts)

    @staticmethod
    def scheme(host: str) -> str:
        return "https" if host.lower().startswith("https://") else "http"
