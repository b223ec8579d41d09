"""Wait until a node started by pid file answers with yellow/green health; fail fast if it dies.

Usage: wait_for_node.py URL PID_FILE LOG_FILE TIMEOUT_S [--ca PEM --user NAME]. On failure prints the
log's tail, so the reason a node did not come up is in the Ansible output rather than behind a 3-minute
time-out. A secured node (https) is asked with the CA and the user given, the password read from the
OPENSEARCH_PASSWORD variable; its 401/503 answers while the security index initialises mean "not yet".
"""

import argparse
import base64
import json
import os
import ssl
import sys
import time
import urllib.request
from pathlib import Path


def _healthy(url: str, context: ssl.SSLContext | None, authorization: str | None) -> bool:
    request = urllib.request.Request(f"{url}/_cluster/health?wait_for_status=yellow&timeout=2s")
    if authorization:
        request.add_header("Authorization", authorization)
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as r:
            return json.load(r).get("status") in ("green", "yellow")
    except OSError:
        return False


def _alive(pid_file: Path) -> bool:
    if not pid_file.exists():
        return True  # the launcher writes the pid file a moment after it forks
    pid = pid_file.read_text().strip()
    return bool(pid) and Path(f"/proc/{pid}").exists()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("pid_file", type=Path)
    parser.add_argument("log_file", type=Path)
    parser.add_argument("timeout_s", type=float)
    parser.add_argument("--ca", help="PEM file of the CA that signed the node's certificate")
    parser.add_argument("--user", help="user for HTTP basic auth (password: $OPENSEARCH_PASSWORD)")
    args = parser.parse_args()
    url, pid_file, log_file, timeout_s = args.url, args.pid_file, args.log_file, args.timeout_s
    context = ssl.create_default_context(cafile=args.ca) if args.ca else None
    authorization = None
    if args.user:
        token = f"{args.user}:{os.environ.get('OPENSEARCH_PASSWORD', '')}".encode()
        authorization = "Basic " + base64.b64encode(token).decode()
    started = time.monotonic()
    while time.monotonic() - started < timeout_s:
        if _healthy(url, context, authorization):
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
