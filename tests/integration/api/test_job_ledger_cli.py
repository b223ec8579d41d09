"""The CLI records its jobs and emits to a JSON-lines file: `biohybrid ingest` on the real node (encoding
through the stack's inference service) leaves a done record that `biohybrid jobs list|show` read back,
and its job and stage events in the jsonl sink, parsed with the cloudevents SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cloudevents.core.formats.json import JSONFormat
from integration.api.stack import ApiStack
from integration.names import session_index
from opensearchpy import OpenSearch

from control_plane.cli.main import main
from control_plane.config.settings import ENV_CONFIG_FILE, LOCAL_FILE

pytestmark = pytest.mark.integration
TENANT = "cli_ledger"


@pytest.fixture
def cli_env(
    stack: ApiStack, client: OpenSearch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, str, Path]]:
    jobs, chunks = session_index("cli", prefix="jobs"), session_index("cli")
    events = tmp_path / "events.jsonl"
    monkeypatch.delenv(ENV_CONFIG_FILE, raising=False)
    for key, value in {
        "LEDGER__INDEX": jobs,
        "EVENTS__ENABLED": "true",
        "EVENTS__SINK": "jsonl",
        "EVENTS__PATH": str(events),
        "INGEST__ENCODER": "service",
        "MODELS__SERVICE_URL": stack.settings.models.service_url,
    }.items():
        monkeypatch.setenv(f"BIOHYBRID__{key}", value)
    yield jobs, chunks, events
    client.indices.delete(index=f"{jobs},{chunks}", ignore_unavailable=True)


def test_a_cli_ingest_is_recorded_and_read_back_by_jobs_list_and_show(
    cli_env: tuple[str, str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs, chunks, events = cli_env
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps(
            {
                "_id": "cli-1",
                "title": "Metformin",
                "text": "Metformin lowers blood glucose in type 2 diabetes.",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    config = ["--config", str(LOCAL_FILE), "--log-level", "WARNING"]
    ingest = ["ingest", str(corpus), "--index", chunks, "--tenant", TENANT, "--no-progress"]
    assert main([*config, *ingest, "--dead-letter", str(tmp_path / "dl.jsonl")]) == 0
    capsys.readouterr()

    assert main([*config, "jobs", "list", "--tenant", TENANT, "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["total"] == 1
    [record] = listing["jobs"]
    assert (record["kind"], record["state"], record["origin"], record["tenant_id"]) == (
        "ingest",
        "done",
        "cli",
        TENANT,
    )
    assert (record["counts"]["documents"], record["detail"]["index"]) == (1, chunks)

    assert main([*config, "jobs", "show", record["job_id"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == record
    assert main([*config, "jobs", "show", "nosuchjob"]) == 1
    assert main([*config, "jobs", "list", "--tenant", TENANT, "--state", "failed"]) == 0
    assert capsys.readouterr().out.strip() == f"0 of 0 job(s) in {jobs} (from 0)"

    parsed = [JSONFormat().read(None, line) for line in events.read_text(encoding="utf-8").splitlines()]
    assert {e.get_source() for e in parsed} == {"/biohybrid/cli"}
    assert [e.get_data()["state"] for e in parsed if e.get_type() == "job.state.changed"] == [  # type: ignore[index]
        "queued",
        "running",
        "done",
    ]
    stages = [
        (e.get_type(), e.get_data()["stage"]) for e in parsed if e.get_type().startswith("ingest.stage.")
    ]  # type: ignore[index]
    assert stages == [
        (f"ingest.stage.{step}", stage)
        for stage in ("prepare", "load", "refresh")
        for step in ("started", "completed")
    ]
    assert all(e.get_subject() == record["job_id"] for e in parsed)
