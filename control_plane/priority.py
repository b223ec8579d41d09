"""The CPU priority of bulk work (an ingest, a re-encode), when an operator lowers it (``--nice``) so its
threads yield the cores to searches served from the same machine. What OpenSearch spends indexing the
bulk writes runs in its own JVM at its own priority: model_artifacts/reports/pipeline-load/README.md
measured no search latency gained from a lower priority alone on 2 cores.

Linux keeps a niceness per thread, and a thread started later inherits its starter's: lowering the
thread that does the bulk work before it starts its workers (onnxruntime's, the bulk writer) lowers them
all and nothing else, so a job thread could yield while the API's request threads do not.
"""

from __future__ import annotations

import os
from typing import Final

BULK_NICE: Final = 0
"""The niceness increment bulk work runs at unless asked otherwise: 0, the searches' own priority. A
higher one gained searches nothing measurable on 2 cores (the report above) and starves the bulk work
itself wherever anything else runs, so it is an operator's choice (``--nice``), not a default."""


def yield_cpu(increment: int) -> None:
    """Lower the calling thread's CPU priority by ``increment``, and so that of every thread it starts
    from now on; call it before the work starts its workers."""
    if increment:
        os.nice(increment)
