"""The secured-cluster settings (opensearch.username, password_file, ca_certs, verify_certs) and
index.tenant_indices: defaults, environment overrides, and the refusals that say how to fix them."""

from __future__ import annotations

import pytest

from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.settings import ConfigError, load_settings
from control_plane.locations import CONFIG_DIR


def test_defaults_are_an_unsecured_cluster_and_shared_indices() -> None:
    settings = load_settings(environ={})
    assert (settings.opensearch.username, settings.opensearch.password_file) == ("", "")
    assert settings.opensearch.ca_certs == ""
    assert settings.opensearch.verify_certs is True
    assert settings.opensearch.use_ssl is False
    assert settings.index.tenant_indices is False


def test_environment_overrides_set_the_service_account() -> None:
    settings = load_settings(
        environ={
            "BIOHYBRID__OPENSEARCH__URL": "https://os.example.org:9200",
            "BIOHYBRID__OPENSEARCH__USERNAME": "biohybrid_control_plane",
            "BIOHYBRID__OPENSEARCH__PASSWORD_FILE": "/run/secrets/opensearch-password",
            "BIOHYBRID__OPENSEARCH__CA_CERTS": "/etc/biohybrid/root-ca.pem",
            "BIOHYBRID__INDEX__TENANT_INDICES": "true",
        }
    )
    assert settings.opensearch.username == "biohybrid_control_plane"
    assert settings.opensearch.password_file == "/run/secrets/opensearch-password"
    assert settings.opensearch.ca_certs == "/etc/biohybrid/root-ca.pem"
    assert settings.opensearch.use_ssl is True
    assert settings.index.tenant_indices is True


def test_an_empty_environment_value_clears_a_setting() -> None:
    # BIOHYBRID__X= parses as YAML null; for these text settings that is "" (off), not a type error.
    settings = load_settings(
        CONFIG_DIR / "local-secure.yaml",
        environ={"BIOHYBRID__OPENSEARCH__USERNAME": "", "BIOHYBRID__OPENSEARCH__PASSWORD_FILE": ""},
    )
    assert (settings.opensearch.username, settings.opensearch.password_file) == ("", "")


def test_a_numeric_username_stays_text() -> None:
    settings = load_settings(
        environ={"BIOHYBRID__OPENSEARCH__USERNAME": "1234", "BIOHYBRID__OPENSEARCH__PASSWORD_FILE": "pw"}
    )
    assert settings.opensearch.username == "1234"


def test_the_secure_profile_loads() -> None:
    settings = load_settings(CONFIG_DIR / "local-secure.yaml", environ={})
    assert settings.opensearch.username == "biohybrid_control_plane"
    assert settings.opensearch.use_ssl is True
    assert settings.index.tenant_indices is True


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"BIOHYBRID__OPENSEARCH__USERNAME": "svc"},
            r"opensearch\.username is 'svc' but opensearch\.password_file is empty: set password_file.*"
            r"BIOHYBRID__OPENSEARCH__PASSWORD_FILE",
        ),
        (
            {"BIOHYBRID__OPENSEARCH__PASSWORD_FILE": "/run/pw"},
            r"opensearch\.password_file is '/run/pw' but opensearch\.username is empty: set username",
        ),
        (
            {"BIOHYBRID__OPENSEARCH__CA_CERTS": "ca.pem", "BIOHYBRID__OPENSEARCH__VERIFY_CERTS": "false"},
            r"opensearch\.ca_certs is 'ca\.pem' but opensearch\.verify_certs is false.*set verify_certs true",
        ),
        (
            {"BIOHYBRID__OPENSEARCH__URLS": "[https://a:9200, http://b:9200]"},
            r"opensearch urls mix http and https \(https://a:9200, http://b:9200\)",
        ),
    ],
)
def test_inconsistent_security_settings_are_refused_saying_how_to_fix(
    env: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings(environ=env)


def test_https_urls_turn_tls_on() -> None:
    assert OpenSearchSettings(urls=["https://a:9200", "HTTPS://b:9200"]).use_ssl is True
    assert OpenSearchSettings(url="http://127.0.0.1:9200").use_ssl is False


def test_tenant_indices_need_tenant_names_that_can_name_indices() -> None:
    key = {"sha256": "0" * 64, "role": "search"}
    keys = [{**key, "tenant": "acme"}, {**key, "tenant": "Globex-EU"}]
    env = {"BIOHYBRID__INDEX__TENANT_INDICES": "true", "BIOHYBRID__API__KEYS": str(keys)}
    with pytest.raises(ConfigError, match=r"api\.keys: tenant 'Globex-EU' cannot name indices.*lowercase"):
        load_settings(environ=env)
    # The same keys are fine while tenants share indices (today's rule for names: [A-Za-z0-9_-]+).
    assert load_settings(environ={"BIOHYBRID__API__KEYS": str(keys)}).api.keys[1].tenant == "Globex-EU"
