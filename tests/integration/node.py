"""Provision (or reuse) the local OpenSearch node with the project's own Ansible playbook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = REPO_ROOT / "ansible"
ROLE_DEFAULTS = ANSIBLE_DIR / "roles" / "opensearch" / "defaults" / "main.yml"
LOG_FILE = REPO_ROOT / ".local" / "opensearch" / "logs" / "biohybrid-local.log"


def pinned_version() -> str:
    return str(yaml.safe_load(ROLE_DEFAULTS.read_text())["opensearch_version"])


def cluster_name_at(url: str) -> str | None:
    """The cluster name answering at ``url``, or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(json.load(response)["cluster_name"])
    except OSError:
        return None


def run_playbook(
    *extra: str, playbook: str = "site.yml", timeout_s: int = 1800
) -> subprocess.CompletedProcess[str]:
    """Run an ansible/ playbook (site.yml: against the local inventory unless ``-i`` says otherwise)
    with the virtualenv's ansible-playbook."""
    ansible_playbook = Path(sys.executable).with_name("ansible-playbook")
    env = {**os.environ, "ANSIBLE_CONFIG": str(ANSIBLE_DIR / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    return subprocess.run(
        [str(ansible_playbook), playbook, *extra],
        cwd=ANSIBLE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
    )


def recap_counts(output: str) -> dict[str, int]:
    """The PLAY RECAP counters (ok, changed, failed, ...) for localhost."""
    line = next(ln for ln in output.splitlines() if ln.startswith("localhost") and "changed=" in ln)
    return {k: int(v) for k, v in (part.split("=") for part in line.split(":", 1)[1].split())}
