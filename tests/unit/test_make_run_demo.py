"""`make run`'s demo index is chunked the way the tests and benchmarks chunk theirs (ingest's default
strategy), so the showcase answers the integration tests assert are the ones `make run` prints: with
whole sections as chunks, "eligibility for breast cancer trials" through clinical-minmax lifted no
criteria at all (the routed window held other records' sections)."""

from __future__ import annotations

import re

from control_plane.ingestion.run import IngestOptions
from control_plane.locations import REPOSITORY_ROOT


def test_make_runs_demo_ingest_uses_the_default_chunking() -> None:
    makefile = (REPOSITORY_ROOT / "Makefile").read_text(encoding="utf-8")
    ingest = [
        line for line in makefile.splitlines() if re.search(r"biohybrid\b.*\bingest \$\(DEMO_SOURCES\)", line)
    ]
    assert len(ingest) == 1, ingest
    assert "--strategy" not in ingest[0], f"make run chunks the demo otherwise than the tests: {ingest[0]}"
    assert IngestOptions.strategy == "sentence"
