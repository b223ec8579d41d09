"""The multi-node inventories resolve to one cluster: every node seeds from all of them, all are
cluster-manager-eligible, and on one machine each node has its own ports and folders (the variables
as Ansible itself renders them, with the `ansible` command; nothing is started)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ANSIBLE_DIR = Path(__file__).resolve().parents[3] / "ansible"
SHOWN = (
    "opensearch_seed_hosts",
    "opensearch_initial_cluster_managers",
    "opensearch_http_port",
    "opensearch_transport_port",
    "opensearch_conf_dir",
    "opensearch_root",
    "opensearch_home",
    "model_server_enabled",
)


def rendered(inventory: str, host: str) -> dict[str, Any]:
    """The host's variables after templating (role defaults are not loaded outside a play: absent)."""
    expression = "{{ {" + ", ".join(f"'{v}': {v} | default(None)" for v in SHOWN) + "} | to_json }}"
    ansible = str(Path(sys.executable).with_name("ansible"))
    result = subprocess.run(
        [
            ansible,
            "-i",
            f"inventories/{inventory}/hosts.yml",
            host,
            "-m",
            "ansible.builtin.debug",
            "-a",
            f"msg={expression}",
        ],
        cwd=ANSIBLE_DIR,
        env={**os.environ, "ANSIBLE_CONFIG": str(ANSIBLE_DIR / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return dict(json.loads(json.loads(result.stdout.split("=>", 1)[1])["msg"]))


@pytest.mark.parametrize(
    ("inventory", "hosts"),
    [
        ("local-cluster", ["node-1", "node-2", "node-3"]),
        ("example-cluster", [f"os-node-{i}.example.internal" for i in (1, 2, 3)]),
    ],
)
def test_every_node_seeds_from_all_and_may_manage(inventory: str, hosts: list[str]) -> None:
    for host in hosts:
        values = rendered(inventory, host)
        assert len(values["opensearch_seed_hosts"]) == 3
        assert values["opensearch_initial_cluster_managers"] == hosts


def test_local_cluster_nodes_share_an_installation_but_nothing_they_write() -> None:
    nodes = [rendered("local-cluster", f"node-{i}") for i in (1, 2, 3)]
    assert nodes[0]["opensearch_seed_hosts"] == ["127.0.0.1:9311", "127.0.0.1:9312", "127.0.0.1:9313"]
    assert [n["opensearch_http_port"] for n in nodes] == [9211, 9212, 9213]
    assert len({n["opensearch_home"] for n in nodes}) == 1
    for key in ("opensearch_conf_dir", "opensearch_root"):  # data, logs, pid file live under the root
        assert len({n[key] for n in nodes}) == 3, key
    # One inference service for the cluster: node-1 runs it.
    assert [n["model_server_enabled"] for n in nodes] == [None, False, False]
