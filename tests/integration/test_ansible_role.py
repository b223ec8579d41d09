"""The Ansible role: idempotent on the local node, and the production path passes lint and checks."""

import json
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import requests
from integration.node import ANSIBLE_DIR, recap_counts, run_playbook

pytestmark = pytest.mark.integration


def test_second_run_changes_nothing(node: str) -> None:
    # Converge first: the session may be reusing a node that another checkout installed.
    assert run_playbook().returncode == 0
    result = run_playbook()
    assert result.returncode == 0, result.stdout[-3000:]
    counts = recap_counts(result.stdout)
    assert counts["changed"] == 0, result.stdout[-3000:]
    assert counts["failed"] == 0
    # The model_server role left the inference service up with its models loaded.
    with urllib.request.urlopen("http://127.0.0.1:8501/ready", timeout=5) as response:
        assert json.load(response)["ready"] is True


@pytest.mark.parametrize(
    "inventory", ["local", "local-cluster", "local-secure", "example-cluster", "bundle-check"]
)
@pytest.mark.parametrize("playbook", ["site.yml", "rolling_restart.yml", "render_config.yml"])
def test_playbook_syntax(inventory: str, playbook: str) -> None:
    result = run_playbook("-i", f"inventories/{inventory}/hosts.yml", "--syntax-check", playbook=playbook)
    assert result.returncode == 0, result.stdout + result.stderr


def test_bundle_path_passes_a_check_run() -> None:
    result = run_playbook("-i", "inventories/bundle-check/hosts.yml", "--check")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert recap_counts(result.stdout)["failed"] == 0
    assert "would download https://artifacts.opensearch.org/releases/bundle/opensearch/" in result.stdout
    assert not Path("/tmp/biohybrid-bundle-check").exists(), "check mode must not touch the disk"


def test_ansible_lint_is_clean() -> None:
    lint = Path(sys.executable).with_name("ansible-lint")
    result = subprocess.run(
        [str(lint), "--nocolor"], cwd=ANSIBLE_DIR, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_control_api_role_serves_it_on_waitress_idempotently(node: str, tmp_path: Path) -> None:
    port = _free_port()
    role = ("--tags", "control_api", "-e", "control_api_enabled=true", "-e", f"control_api_port={port}")
    role += ("-e", f"control_api_state_dir={tmp_path}")
    try:
        first = run_playbook(*role)
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-2000:]
        assert recap_counts(first.stdout)["changed"] == 1  # started
        answer = requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
        assert answer.status_code == 200
        # waitress (ident "biohybrid") and HTTP/1.1 keep-alive, not werkzeug's development server.
        assert answer.headers["Server"] == "biohybrid"
        assert answer.headers.get("Connection", "").lower() != "close"
        again = run_playbook(*role)
        assert again.returncode == 0 and recap_counts(again.stdout)["changed"] == 0, again.stdout[-3000:]
    finally:
        stopped = run_playbook(*role, "-e", "control_api_state=stopped")
    assert stopped.returncode == 0 and recap_counts(stopped.stdout)["changed"] == 1, stopped.stdout[-3000:]
    with pytest.raises(requests.ConnectionError):
        requests.get(f"http://127.0.0.1:{port}/health", timeout=5)
