"""The local 3-node cluster (Ansible inventory local-cluster): provision it, kill and restart its nodes
for real (SIGKILL of the JVM; the playbook starts it again)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from integration.node import REPO_ROOT, run_playbook
from opensearchpy import OpenSearch

INVENTORY = "inventories/local-cluster/hosts.yml"
NODES = ("node-1", "node-2", "node-3")
CLUSTER_ROOT = REPO_ROOT / ".local" / "cluster"
CONFIG_FILE = REPO_ROOT / "control_plane" / "config" / "local-cluster.yaml"


def provision(*extra: str) -> str:
    """Run site.yml on the cluster inventory; the playbook's output when it fails, else ''."""
    result = run_playbook("-i", INVENTORY, *extra)
    return "" if result.returncode == 0 else result.stdout[-5000:] + result.stderr[-2000:]


def rolling_restart() -> str:
    """ansible/rolling_restart.yml on the cluster: one node at a time, green before the next."""
    result = run_playbook("-i", INVENTORY, playbook="rolling_restart.yml")
    return "" if result.returncode == 0 else result.stdout[-5000:] + result.stderr[-2000:]


def kill_by_pid_file(pid_file: Path, timeout_s: float = 30.0) -> int:
    """SIGKILL the process whose pid ``pid_file`` holds (no clean shutdown) and wait until it is gone
    (at most ``timeout_s``); its pid."""
    pid = int(pid_file.read_text().strip())
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout_s
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return pid


def kill_node(node: str, timeout_s: float = 30.0) -> int:
    """SIGKILL the node's JVM and wait until it is gone; its pid."""
    return kill_by_pid_file(CLUSTER_ROOT / node / "run" / "opensearch.pid", timeout_s)


def restart_node(node: str) -> str:
    """Start a killed node again with the project's playbook (the inference service left alone)."""
    return provision("--limit", node, "-e", "model_server_enabled=false", "-e", "opensearch_install=false")


def wait_for_green(client: OpenSearch, nodes: int = len(NODES), timeout_s: int = 300) -> dict[str, object]:
    health: dict[str, object] = client.cluster.health(
        wait_for_status="green",
        wait_for_nodes=str(nodes),
        timeout=f"{timeout_s}s",
        params={"request_timeout": timeout_s + 10},
    )
    return health
