"""Make `tests/` importable so integration helpers can be shared (tests/integration/node.py), and the
repository's tooling (model_artifacts/, benchmarks/); run the suite in two halves at once under
pytest-xdist (`make test` passes ``-n 2``).

The halves balance CI's wall time on two cores: the 3-node cluster tests spend most of their time
waiting on nodes that restart and recover, so they run beside the single-node tests rather than after
them. Each half goes to one worker whole, so each session-scoped fixture (the node's client, the BEIR
slices, the cluster) is built by one worker only.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# The tooling at the repository root is not an installed package (not in the wheel): model_artifacts/
# (training and export) and benchmarks/ are imported from the checkout, after tests/.
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two workers encode side by side on CI's two cores, and each inference service a test starts
    # inherits this: one ONNX thread per session instead of one per core (control_plane/models/runtime.py).
    os.environ.setdefault("BIOHYBRID_ORT_THREADS", "1")

TESTS = Path(__file__).parent
# The cluster half (with the security-plugin node's tests) is the longer one even so (CI, stop 27: the
# unit tests there made it end last), so the unit tests run in the single-node half.
BESIDE_THE_CLUSTER = ("integration/cluster/", "integration/security/")


def half_of(path: Path) -> str:
    """Which half a test file runs in: ``cluster`` or ``single-node``."""
    relative = path.resolve().relative_to(TESTS).as_posix()
    return "cluster" if relative.startswith(BESIDE_THE_CLUSTER) else "single-node"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Each half is one xdist scope, given to one worker whole (any ``--dist`` mode)."""
    from xdist.scheduler import LoadScopeScheduling

    class TwoHalves(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return half_of(config.rootpath / nodeid.split("::", 1)[0])

    return TwoHalves(config, log)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In the xdist controller: stop the local node if a worker started it (integration/conftest.py)."""
    if hasattr(session.config, "workerinput"):
        return  # a worker: the other one may still use the node
    from integration.node import STARTED_BY_A_WORKER, run_playbook

    # Only the controller whose worker started it: a session run inside a test (test_node_left_as_found)
    # reuses the node and must not stop it.
    if STARTED_BY_A_WORKER.exists() and STARTED_BY_A_WORKER.read_text(encoding="utf-8") == str(os.getpid()):
        run_playbook("-e", "opensearch_state=stopped")
        STARTED_BY_A_WORKER.unlink()
