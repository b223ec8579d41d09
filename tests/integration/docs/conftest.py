"""The stack the documentation's runnable examples run against: the session's node, an inference service of
this package's own with the models registered in the tests' group (the pipelines pointing at it), a
session index with part of the demo corpus for ``chunks-demo``, and a control API process serving it
with the demo keys of local.yaml. Everything the examples create is named after this session and removed
at the end; the node's pipelines are put back as the session had them (integration/service.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from integration.conftest import SliceIndex
from integration.names import session_index
from integration.node import demo_encoding_lock
from integration.node_state import TEST_GROUP
from integration.service import free_port, registered_models
from opensearchpy import OpenSearch

from control_plane.config.settings import LOCAL_FILE, Settings
from control_plane.datasets.locate import dataset_folder
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.locations import REPOSITORY_ROOT

# The first documents of the demo sources (all 8 PMC articles, then trials): enough for every example to
# answer, at a fraction of the whole corpus's indexing time. The examples are checked for success, not
# for what they rank.
DEMO_DOCUMENTS = 24


@dataclass(frozen=True)
class DocsStack:
    """What an example runs with: the environment of its process, the documented names mapped to this
    session's, the node's URL, and the prefix every index an example may touch starts with."""

    env: dict[str, str]
    replacements: dict[str, str]
    opensearch: str
    index_prefix: str


def _ingest_demo(client: OpenSearch, settings: Settings, index: str, dead_letter: Path) -> None:
    encoder, counter = python_encoder(settings)
    options = IngestOptions(index=index, strategy="section", progress=False, limit_documents=DEMO_DOCUMENTS)
    with demo_encoding_lock():  # the chunks the API stack encoded: read from the shared cache
        summary = ingest(
            client,
            [str(dataset_folder("pmc")), str(dataset_folder("clinicaltrials"))],
            options,
            encoder,
            DeadLetterFile(dead_letter),
            counter,
        )
    assert summary.chunks > 0 and summary.index_failures == 0, summary
    client.indices.refresh(index=index)


def _start_api(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "control_plane.api", "--port", str(port), "--log-format", "text"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, env=env, cwd=REPOSITORY_ROOT, stdout=out, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"the control API exited with {process.returncode}:\n{log.read_text()[-4000:]}"
            )
        try:
            if requests.get(f"http://127.0.0.1:{port}/health", timeout=1).ok:
                return process
        except requests.RequestException:  # not listening yet, or still starting
            time.sleep(0.3)
    process.kill()
    raise AssertionError(f"the control API did not answer /health within 120 s:\n{log.read_text()[-4000:]}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (running jobs are recorded as interrupted after api.job_grace_s), then a kill."""
    process.terminate()
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


# Module scope: the examples are one module, and the stack (its models registered in the tests' group,
# the pipelines pointing at them) must be gone before the next module runs. "package" would not do it:
# these folders are not packages, so a package-scoped fixture lives to the end of the session
# (tests/unit/test_suite_layout.py).
@pytest.fixture(scope="module")
def docs_stack(
    client: OpenSearch,
    applied: Settings,
    beir_slices: dict[str, SliceIndex],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[DocsStack]:
    demo = session_index("docs")
    owned = [f"{demo}*", session_index("docs", prefix="jobs"), session_index("docs", prefix="eval-runs")]
    folder = tmp_path_factory.mktemp("docs-examples")
    with registered_models(client) as settings:
        try:
            _ingest_demo(client, settings, demo, folder / "demo-dead-letter.jsonl")
            api_port = free_port()
            service = settings.models.service_url.split("://", 1)[1].rstrip("/")
            env = {key: value for key, value in os.environ.items() if key != "BIOHYBRID_EVAL_CONFIG"}
            env.update(
                {
                    "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
                    "BIOHYBRID_CONFIG": str(LOCAL_FILE),
                    "BIOHYBRID__MODELS__SERVICE_URL": settings.models.service_url,
                    "BIOHYBRID__MODELS__GROUP": TEST_GROUP,
                    "BIOHYBRID__API__PORT": str(api_port),
                    "BIOHYBRID__SEARCH__INDEX_PATTERN": f"{demo}*",
                    # Budgets wide enough for a loaded 2-core CI machine (as the API tests set them).
                    "BIOHYBRID__SEARCH__COMPONENT_TIMEOUT_MS": "10000",
                    "BIOHYBRID__SEARCH__RERANK_TIMEOUT_MS": "30000",
                    "BIOHYBRID__LEDGER__INDEX": owned[1],
                    "BIOHYBRID_EVAL__STORE__INDEX": owned[2],
                    "BIOHYBRID_EVAL__INDICES__NFCORPUS": beir_slices["nfcorpus"].index,
                    "HAYSTACK_TELEMETRY_ENABLED": "False",
                }
            )
            api = _start_api(env, api_port, folder / "api.log")
            try:
                yield DocsStack(
                    env=env,
                    replacements={
                        "chunks-demo": demo,
                        "chunks-papers": f"{demo}-papers",
                        "localhost:8600": f"127.0.0.1:{api_port}",
                        "127.0.0.1:8600": f"127.0.0.1:{api_port}",
                        "localhost:8501": service,
                        "127.0.0.1:8501": service,
                    },
                    opensearch=settings.opensearch.url,
                    index_prefix=demo,
                )
            finally:
                _stop(api)
        finally:
            client.indices.delete(index=",".join(owned), ignore_unavailable=True)
