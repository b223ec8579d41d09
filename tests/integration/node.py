"""Provision (or reuse) the local OpenSearch node with the project's own Ansible playbook."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
ANSIBLE_DIR = REPO_ROOT / "ansible"
ROLE_DEFAULTS = ANSIBLE_DIR / "roles" / "opensearch" / "defaults" / "main.yml"
LOG_FILE = REPO_ROOT / ".local" / "opensearch" / "logs" / "biohybrid-local.log"
# Written when an xdist worker provisioned the node: the controller stops it after both workers end.
STARTED_BY_A_WORKER = REPO_ROOT / ".local" / "tests-started-the-node"
LOCK_FILE = REPO_ROOT / ".local" / "tests-node.lock"
DEMO_ENCODING_LOCK = REPO_ROOT / ".local" / "tests-demo-encoding.lock"
# One folder per test run (xdist's testrun_uid, shared by its workers): a file per worker using the node,
# and the node's state as the first of them found it (conftest.py's client fixture).
NODE_USERS = REPO_ROOT / ".local" / "tests-node-users"


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock shared by the test processes of this checkout (the two xdist workers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def node_lock() -> AbstractContextManager[None]:
    """Held while a test session checks for the node and provisions it (two xdist workers, one node)."""
    return _file_lock(LOCK_FILE)


def demo_encoding_lock() -> AbstractContextManager[None]:
    """Held while a fixture ingests the demo sources (PMC + ClinicalTrials.gov, section chunks). The API
    stack and the cluster reference ingest the same chunks in the two halves; under the lock the second
    reads every encoding from the shared cache (.local/encodings) instead of encoding them again at the
    same time on the same two cores."""
    return _file_lock(DEMO_ENCODING_LOCK)


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
