"""A test session leaves the node it reuses as it found it: a developer's models and connectors (their
URLs), pipelines, templates and ``jobs`` (node_state.py). Checked by running a real pytest session of
modules that register models behind their own inference service and write jobs, against this node."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

from integration.node import REPO_ROOT
from integration.node_state import TEST_GROUP, differences, read_state, restore_state
from opensearchpy import OpenSearch

from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.mlcommons.ml_api import word_match_only
from control_plane.mlcommons.registry import register_models
from control_plane.resources.catalog import load_resources

# One test that registers models (behind a service on a random port) and one that ingests and
# re-encodes through the CLI (which writes jobs): what used to leave a developer's node changed.
INNER = (
    "tests/integration/test_models_registered.py::test_registration_is_idempotent_and_deployed",
    "tests/integration/test_ingest_index_models.py::test_the_cli_says_why_and_exits_with_the_configuration_code",
)


def test_a_session_that_registers_models_and_writes_jobs_leaves_the_node_as_it_found_it(
    client: OpenSearch, applied: Settings
) -> None:
    # A developer's node as `make run` leaves it: models registered behind the configured service URL,
    # the pipelines applied with their ids; put back as this session had them afterwards, so the tests
    # after this one meet the node as they would have.
    session = read_state(client)
    developer = load_settings(LOCAL_FILE, environ={})
    ids = {m.role: m.model_id for m in register_models(client, developer)}
    apply_resources(client, developer, load_resources(developer, ids))
    try:
        _check_left_as_found(client, developer)
    finally:
        restore_state(client, session)


def _check_left_as_found(client: OpenSearch, developer: Settings) -> None:
    before = read_state(client)
    calls = [url for _, urls in before.connectors.values() for url in urls]
    assert any(url.startswith(developer.models.service_url) for url in calls), calls

    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "BIOHYBRID__"))}
    inner = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", *INNER],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert inner.returncode == 0, inner.stdout[-4000:] + inner.stderr[-2000:]
    assert f"{len(INNER)} passed" in inner.stdout

    after = read_state(client)
    # A connector ml-commons refuses to delete for models that only share a word of its id (its in-use
    # check matches connector_id as text: mlcommons/ml_api.py delete_connector) stays, and is said so.
    stuck = {c for c in set(after.connectors) - set(before.connectors) if word_match_only(client, c)}
    after = replace(after, connectors={c: v for c, v in after.connectors.items() if c not in stuck})
    assert differences(before, after) == []
    assert after.models == before.models and after.connectors == before.connectors
    assert not any(name.startswith(TEST_GROUP) for name, *_ in after.models.values())
