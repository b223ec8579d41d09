"""Wait until a node started by pid file answers with yellow/green health; fail fast if it dies.

Usage: wait_for_node.py URL PID_FILE LOG_FILE TIMEOUT_S. On failure prints the log's tail, so the
reason a node did not come up is in the Ansible output rather than behind a 3-minute time-out.
"""

import json
import sys
import time
import urllib.request
from pathlib import Path


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(
            f"{url}/_cluster/health?wait_for_status=yellow&timeout=2s", timeout=5
        ) as r:
            return json.load(r).get("status") in ("green", "yellow")
    except OSError:
        return False


def _alive(pid_file: Path) -> bool:
    if not pid_file.exists():
        return True  # the launcher writes the pid file a moment after it forks
    pid = pid_file.read_text().strip()
    return bool(pid) and Path(f"/proc/{pid}").exists()


def main() -> int:
    url, pid_file, log_file, timeout_s = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4])
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if _healthy(url):
            print(f"healthy after {time.monotonic() - started:.1f}s")
            return 0
        if not _alive(pid_file):
            break
        time.sleep(1)
    reason = "did not become healthy in time" if _alive(pid_file) else "exited"
    tail = log_file.read_text(errors="replace").splitlines()[-40:] if log_file.exists() else ["(no log)"]
    print(f"OpenSearch {reason}. Last lines of {log_file}:\n" + "\n".join(tail), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
