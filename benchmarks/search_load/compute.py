"""Load points: one locust run per path and client count, read from locust's CSV statistics."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT

LOCUSTFILE = REPOSITORY_ROOT / "loadtest" / "locustfile.py"
SPEC_BAR_MS = 500.0


class LoadRunError(BiohybridError, RuntimeError):
    """locust did not run or wrote no statistics; the message carries its last output."""


@dataclass(frozen=True)
class LoadPoint:
    path: str
    users: int
    requests: int
    failures: int
    qps: float
    p50_ms: float
    p95_ms: float
    p99_ms: float


def parse_stats(text: str, path: str, users: int) -> LoadPoint:
    """The ``Aggregated`` row of locust's ``*_stats.csv`` as a load point."""
    for row in csv.DictReader(io.StringIO(text)):
        if row["Name"] == "Aggregated":
            return LoadPoint(
                path=path,
                users=users,
                requests=int(row["Request Count"]),
                failures=int(row["Failure Count"]),
                qps=float(row["Requests/s"]),
                p50_ms=float(row["50%"]),
                p95_ms=float(row["95%"]),
                p99_ms=float(row["99%"]),
            )
    raise LoadRunError(f"no Aggregated row in locust's statistics for {path} with {users} users")


def sustainable(points: Sequence[LoadPoint], bar_ms: float = SPEC_BAR_MS) -> dict[str, LoadPoint | None]:
    """Per path, the point with the highest QPS whose P95 stays under ``bar_ms`` and that had no failures
    (None: no such point)."""
    best: dict[str, LoadPoint | None] = {}
    for point in points:
        best.setdefault(point.path, None)
        current = best[point.path]
        if point.p95_ms < bar_ms and point.failures == 0 and (current is None or point.qps > current.qps):
            best[point.path] = point
    return best


def run_locust(
    path: str, users: int, host: str, seconds: int, environment: Mapping[str, str], scratch: Path
) -> LoadPoint:
    """One headless locust run: ``users`` clients started at once, stopped after ``seconds``."""
    prefix = scratch / f"{path}-{users}"
    command = [
        sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--only-summary",
        "-u", str(users), "-r", str(users), "-t", f"{seconds}s", "--stop-timeout", "5",
        "--host", host, "--csv", str(prefix), "--loglevel", "WARNING",
    ]  # fmt: skip
    env = {**os.environ, **environment, "BIOHYBRID_LOAD_PATH": path}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=seconds + 120)
    stats = Path(f"{prefix}_stats.csv")
    if not stats.is_file():
        tail = (done.stdout + done.stderr)[-2000:]
        raise LoadRunError(f"locust wrote no statistics (exit {done.returncode}); is it installed? "
                           f"`pip install -e '.[bench]'`\n{tail}")  # fmt: skip
    return parse_stats(stats.read_text(encoding="utf-8"), path, users)
