"""The CPU priority of bulk work (an ingest, a re-encode, an evaluation): below the searches', so on a
machine that serves both, the bulk work's own threads yield the cores to them; on an otherwise idle
machine it costs nothing. (What OpenSearch spends indexing the bulk writes runs in its own JVM, at its
priority: model_artifacts/reports/pipeline-load/README.md measured no search latency gained from this
alone on 2 cores.)

Linux keeps a niceness per thread, and a thread started later inherits its starter's: lowering the
thread that does the bulk work before it starts its workers (onnxruntime's, the bulk writer) lowers them
all and nothing else, so a job thread of the control API yields while the API's request threads do not.
"""

from __future__ import annotations

import os
from typing import Final

BULK_NICE: Final = 10
"""The niceness increment bulk work runs at by default (0: the searches' own priority, 19: the lowest)."""


def yield_cpu(increment: int = BULK_NICE) -> None:
    """Lower the calling thread's CPU priority by ``increment``, and so that of every thread it starts
    from now on; call it before the work starts its workers."""
    if increment:
        os.nice(increment)
