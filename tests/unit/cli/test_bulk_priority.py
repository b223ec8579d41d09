import argparse
import subprocess
import sys

import pytest

from control_plane.cli.common import nice_level
from control_plane.cli.main import build_parser
from control_plane.priority import BULK_NICE


@pytest.mark.parametrize("text", ["-1", "20", "low"])
def test_a_niceness_outside_0_to_19_is_refused_with_the_range(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="from 0 to 19"):
        nice_level(text)


def test_ingest_and_reencode_take_a_niceness_and_keep_full_priority_by_default() -> None:
    parser = build_parser()
    assert parser.parse_args(["ingest", "pmc"]).nice == BULK_NICE == 0
    assert parser.parse_args(["reencode", "--nice", "10"]).nice == 10


def test_threads_started_after_yielding_run_at_the_lower_priority() -> None:
    """Linux keeps a niceness per thread: a worker started afterwards (as onnxruntime's are) inherits it."""
    script = (
        "import os, threading; from control_plane.priority import yield_cpu; "
        "before = os.getpriority(os.PRIO_PROCESS, 0); yield_cpu(5); seen = []; "
        "mine = lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()); "
        "t = threading.Thread(target=lambda: seen.append(mine())); "
        "t.start(); t.join(); print(seen[0] - before)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "5"
