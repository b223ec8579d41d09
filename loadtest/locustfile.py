"""Users for `python -m benchmarks.search_load` (locust, headless): each sends hybrid-rrf
searches in a closed loop (its next query as soon as the last one answered), through the control API
(`api`) or straight to the search pipeline with plain text (`direct-text`, ml-commons encodes).

Outside the control_plane package on purpose: locust is a benchmark-only tool (the `bench` extra), and
the package must import without it. The benchmark sets the BIOHYBRID_LOAD_* variables.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from locust import HttpUser, constant, task

from control_plane.cluster.client import configure_session
from control_plane.config.settings import load_settings
from control_plane.query.components import text_search_body

PATH = os.environ["BIOHYBRID_LOAD_PATH"]
QUERIES = [
    q for q in Path(os.environ["BIOHYBRID_LOAD_QUERIES"]).read_text(encoding="utf-8").splitlines() if q
]
INDEX = os.environ.get("BIOHYBRID_LOAD_INDEX", "chunks-*")
KEY = os.environ.get("BIOHYBRID_LOAD_KEY", "")
SIZE = int(os.environ.get("BIOHYBRID_LOAD_SIZE", "10"))
# Straight to OpenSearch: the settings the benchmark read (same environment), for a secured cluster's
# auth and TLS, set up as make_client's.
OPENSEARCH = None if PATH == "api" else load_settings().opensearch
_next_user = itertools.count()


class SearchUser(HttpUser):
    wait_time = constant(0)

    def on_start(self) -> None:
        shift = next(_next_user) * 7919 % len(QUERIES)  # users start at different queries
        self.queries = itertools.cycle(QUERIES[shift:] + QUERIES[:shift])
        if OPENSEARCH is not None:
            configure_session(self.client, OPENSEARCH)

    @task
    def search(self) -> None:
        query = next(self.queries)
        if PATH == "api":
            body = {"query": query, "size": SIZE, "fusion_method": "rrf"}
            self.client.post("/v1/search", json=body, headers={"X-API-Key": KEY}, name="api hybrid-rrf")
        else:
            body = text_search_body(query, SIZE)
            url = f"/{INDEX}/_search?search_pipeline=hybrid-rrf"
            self.client.post(url, json=body, name="direct-text hybrid-rrf")
