"""Searches while an ingest encodes on the same machine: the ingest as an admin runs it (``biohybrid
ingest``, encoding in its own process), each into a fresh scratch index with an empty encoding cache, so
every run encodes everything,
started ``warmup_s`` before the searches (its models loaded, its encoding under way) and stopped after
them; the scratch index is removed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager

from opensearchpy import OpenSearch

from control_plane.locations import REPOSITORY_ROOT


@contextmanager
def ingest_running(
    client: OpenSearch, sources: list[str], index: str, nice: int | None, warmup_s: float
) -> Iterator[None]:
    """An ingest of ``sources`` into ``index`` at ``nice`` (None: no ingest at all) while the body runs."""
    if nice is None:
        yield
        return
    command = [
        sys.executable, "-m", "control_plane.cli.main", "--log-format", "text", "ingest", *sources,
        "--index", index, "--nice", str(nice), "--no-progress",
    ]  # fmt: skip
    # an empty encoding cache: every run encodes every chunk, as a first ingest of new documents does
    cache = tempfile.mkdtemp(prefix="ingest-load-cache-")
    environment = {**os.environ, "BIOHYBRID__MODELS__ENCODING_CACHE_DIR": cache}
    process = subprocess.Popen(
        command, cwd=REPOSITORY_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment
    )
    try:
        time.sleep(warmup_s)
        if process.poll() is not None:
            raise RuntimeError(f"the ingest ended before the searches began (exit {process.returncode})")
        yield
        if process.poll() is not None:
            raise RuntimeError("the ingest ended before the searches did: use a larger source")
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        client.indices.delete(index=index, ignore_unavailable=True)
        shutil.rmtree(cache, ignore_errors=True)
