"""The secured configuration the opensearch role renders (render_config.yml: the role's own templates
and defaults, no node touched) for the example production cluster and the local security node: TLS on
both layers, no anonymous access, no demo users, one read-only role per tenant over its own indices,
ml-commons calls locked to the inference service, and a plain local node with no security keys."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ANSIBLE_DIR = Path(__file__).resolve().parents[3] / "ansible"
EXAMPLE_NODES = [f"os-node-{n}.example.internal" for n in (1, 2, 3)]
TENANT_CLUSTER_ACTIONS = {
    "indices:data/read/mget",
    "indices:data/read/msearch",
    "indices:data/read/scroll",
    "indices:data/read/scroll/clear",
    "cluster:admin/opensearch/ml/predict",
}


RENDERS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("example-cluster",): (),
    ("local-secure",): (),
    ("local",): (),
    ("example-cluster", "no-encode"): ("-e", "opensearch_security_tenant_can_encode=false"),
}


@cache
def _all_rendered() -> dict[tuple[str, ...], Path]:
    """Every render of this module, run side by side (each is an ansible-playbook start-up)."""
    root = Path(tempfile.mkdtemp(prefix="biohybrid-rendered-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    playbook = str(Path(sys.executable).with_name("ansible-playbook"))
    env = {**os.environ, "ANSIBLE_CONFIG": str(ANSIBLE_DIR / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    running = {}
    for key, extra in RENDERS.items():
        out = root / "-".join(key)
        command = [
            playbook,
            "-i",
            f"inventories/{key[0]}/hosts.yml",
            "render_config.yml",
            "-e",
            f"opensearch_render_dir={out}",
            *extra,
        ]
        running[key] = (
            out,
            subprocess.Popen(
                command, cwd=ANSIBLE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            ),
        )
    outputs = {}
    for key, (out, process) in running.items():
        log, _ = process.communicate(timeout=300)
        assert process.returncode == 0, log[-4000:]
        outputs[key] = out
    return outputs


def rendered(inventory: str, variant: str = "") -> Path:
    return _all_rendered()[(inventory, variant) if variant else (inventory,)]


def load(inventory: str, host: str, name: str, variant: str = "") -> Any:
    return yaml.safe_load((rendered(inventory, variant) / host / name).read_text())


@pytest.mark.parametrize("host", EXAMPLE_NODES)
def test_every_production_node_speaks_tls_on_both_layers_and_knows_its_peers(host: str) -> None:
    settings = load("example-cluster", host, "opensearch.yml")
    assert "plugins.security.disabled" not in settings
    assert settings["plugins.security.ssl.http.enabled"] is True
    for layer in ("transport", "http"):
        assert settings[f"plugins.security.ssl.{layer}.pemcert_filepath"] == "node.pem"
        assert settings[f"plugins.security.ssl.{layer}.pemkey_filepath"] == "node-key.pem"
        assert settings[f"plugins.security.ssl.{layer}.pemtrustedcas_filepath"] == "root-ca.pem"
    assert settings["plugins.security.authcz.admin_dn"] == ["CN=biohybrid-admin,O=example"]
    assert settings["plugins.security.nodes_dn"] == [f"CN={node},O=example" for node in EXAMPLE_NODES]
    assert settings["discovery.seed_hosts"] == EXAMPLE_NODES


def test_ml_commons_may_call_only_the_inference_service() -> None:
    settings = load("example-cluster", EXAMPLE_NODES[0], "opensearch.yml")
    patterns = settings["plugins.ml_commons.trusted_connector_endpoints_regex"]
    assert patterns == ["^http://127\\.0\\.0\\.1:8501/.*$"]

    def trusted(url: str) -> bool:
        return any(re.match(pattern, url) for pattern in patterns)

    assert trusted("http://127.0.0.1:8501/v1/embeddings")
    for url in (
        "http://127.0.0.1:8502/v1/embeddings",
        "http://evil.example/v1",
        "http://127.0.0.1.evil:8501/",
    ):
        assert not trusted(url), url


def test_nobody_is_anonymous_and_the_identity_provider_comes_before_basic_auth() -> None:
    config = load("example-cluster", EXAMPLE_NODES[0], "opensearch-security/config.yml")["config"]["dynamic"]
    assert config["http"]["anonymous_auth_enabled"] is False
    domains = config["authc"]
    assert domains["identity_provider_domain"]["http_authenticator"]["type"] == "openid"
    assert domains["identity_provider_domain"]["http_authenticator"]["config"]["roles_key"] == "roles"
    assert domains["identity_provider_domain"]["order"] < domains["basic_internal_auth_domain"]["order"]
    assert domains["basic_internal_auth_domain"]["http_authenticator"]["challenge"] is True


def test_there_are_no_demo_users_only_the_service_account_and_the_tenants_users() -> None:
    example = load("example-cluster", EXAMPLE_NODES[0], "opensearch-security/internal_users.yml")
    assert set(example) == {"_meta", "biohybrid_control_plane"}
    local = load("local-secure", "secure-1", "opensearch-security/internal_users.yml")
    assert set(local) == {"_meta", "biohybrid_control_plane", "acme_reader", "globex_reader"}
    assert local["acme_reader"]["backend_roles"] == ["tenant:acme"]
    mapping = load("example-cluster", EXAMPLE_NODES[0], "opensearch-security/roles_mapping.yml")
    assert mapping["all_access"]["users"] == [] and mapping["all_access"]["backend_roles"] == []
    assert mapping["biohybrid_tenant_tenant_a"]["backend_roles"] == ["tenant:tenant_a"]


@pytest.mark.parametrize(
    ("inventory", "host", "tenants"),
    [
        ("example-cluster", EXAMPLE_NODES[0], ["tenant_a", "tenant_b"]),
        ("local-secure", "secure-1", ["acme", "globex"]),
    ],
)
def test_each_tenant_role_reads_its_own_indices_and_reaches_no_management_api(
    inventory: str, host: str, tenants: list[str]
) -> None:
    roles = load(inventory, host, "opensearch-security/roles.yml")
    assert {name for name in roles if name.startswith("biohybrid_tenant_")} == {
        f"biohybrid_tenant_{t}" for t in tenants
    }
    for tenant in tenants:
        role = roles[f"biohybrid_tenant_{tenant}"]
        assert role["index_permissions"] == [
            {"index_patterns": [f"chunks-{tenant}", f"chunks-{tenant}-*"], "allowed_actions": ["read"]}
        ]
        assert set(role["cluster_permissions"]) <= TENANT_CLUSTER_ACTIONS
        for action in role["cluster_permissions"]:
            assert not re.search(r"pipeline|template|security|snapshot|settings|ml/(?!predict$)", action), (
                action
            )


def test_without_encoding_rights_a_tenant_has_no_ml_commons_action_at_all() -> None:
    roles = load("example-cluster", EXAMPLE_NODES[0], "opensearch-security/roles.yml", "no-encode")
    assert not any("ml" in action for action in roles["biohybrid_tenant_tenant_a"]["cluster_permissions"])


def test_the_service_account_owns_the_project_indices_and_management_apis() -> None:
    role = load("local-secure", "secure-1", "opensearch-security/roles.yml")["biohybrid_control_plane"]
    assert role["index_permissions"] == [
        {"index_patterns": ["chunks*", "eval-runs*", "jobs*"], "allowed_actions": ["indices_all"]}
    ]
    for needed in (
        "cluster:admin/search/pipeline/*",
        "cluster:admin/opensearch/ml/*",
        "cluster:admin/snapshot/*",
        "cluster:admin/tasks/cancel",  # a search whose caller left (search/abandoned.py)
    ):
        assert needed in role["cluster_permissions"]
    assert not any("security" in action for action in role["cluster_permissions"])


def test_the_security_node_runs_the_2_19_build_on_a_java_it_supports() -> None:
    settings = load("local-secure", "secure-1", "opensearch.yml")
    assert settings["http.port"] == 9221 and settings["discovery.type"] == "single-node"
    # ml-commons is installed there: its connectors may call only the loopback inference service.
    assert settings["plugins.ml_commons.trusted_connector_endpoints_regex"] == [
        "^http://127\\.0\\.0\\.1:[0-9]+/.*$",
        "^http://localhost:[0-9]+/.*$",
    ]
    jvm = (rendered("local-secure") / "secure-1" / "jvm.options").read_text()
    assert "-javaagent" not in jvm  # the 3.x agent does not exist in 2.19


def test_a_plain_local_node_carries_no_security_settings() -> None:
    settings = load("local", "localhost", "opensearch.yml")
    assert not any(key.startswith("plugins.security") for key in settings)
    assert settings["plugins.ml_commons.trusted_connector_endpoints_regex"] == [
        "^http://127\\.0\\.0\\.1:[0-9]+/.*$",
        "^http://localhost:[0-9]+/.*$",
    ]
