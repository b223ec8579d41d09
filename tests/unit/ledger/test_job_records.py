"""A job's life in the ledger: queued -> running -> done | failed with a reason; timings from the
transitions, counts from the result, and a stored form that fits the strict ``jobs`` mapping."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from control_plane.config.settings import load_settings
from control_plane.ledger.records import (
    JobRecord,
    JobTransitionError,
    document,
    done,
    evaluation_counts,
    failed,
    from_document,
    numeric_counts,
    queued,
    registration_counts,
    running,
)
from control_plane.ledger.store import TEMPLATE_NAME
from control_plane.resources.catalog import ResourceKind, load_resources

T0 = datetime(2026, 11, 24, 10, 0, 0, tzinfo=UTC)


def _queued() -> JobRecord:
    return queued("ingest", "acme", "api", {"index": "chunks-acme", "limit": None}, "job1", now=T0)


def test_a_job_that_ends_well_has_its_timings_and_counts() -> None:
    record = running(_queued(), now=T0 + timedelta(seconds=2))
    record = done(record, {"documents": 3.0, "chunks": 17.0}, now=T0 + timedelta(seconds=5, milliseconds=250))
    assert (record.state, record.reason) == ("done", None)
    assert record.started_at == T0 + timedelta(seconds=2)
    assert record.duration_ms == 3250.0  # running -> finished, not queued -> finished
    assert record.counts == {"documents": 3.0, "chunks": 17.0}
    assert record.detail == {"index": "chunks-acme"}  # None values are left out
    assert record.updated_at == record.finished_at


def test_a_failed_job_says_why() -> None:
    record = failed(running(_queued(), now=T0), "gpu_unavailable", "GpuUnavailableError: CUDA", now=T0)
    assert (record.state, record.reason, record.error) == (
        "failed",
        "gpu_unavailable",
        "GpuUnavailableError: CUDA",
    )
    assert record.duration_ms == 0.0


def test_a_job_cannot_leave_an_end_state_or_skip_running() -> None:
    ended = done(running(_queued()), {})
    with pytest.raises(JobTransitionError, match="job job1 cannot go from done to running"):
        running(ended)
    with pytest.raises(JobTransitionError, match="from queued to done"):
        done(_queued(), {})


def test_counts_are_the_numbers_of_a_result() -> None:
    assert numeric_counts({"documents": 2, "seconds": 1.5, "index": "x", "stored": True}) == {
        "documents": 2.0,
        "seconds": 1.5,
    }
    assert numeric_counts({"documents": 2, "chunks": 5}, keys=("chunks",)) == {"chunks": 5.0}
    assert numeric_counts(["not", "a", "mapping"]) == {}
    assert evaluation_counts({"query_count": 20, "configurations": [{}, {}], "alerts": ["bm25"]}) == {
        "queries": 20.0,
        "configurations": 2.0,
        "alerts": 1.0,
    }


@dataclass
class _Model:
    state: str


def test_registration_counts_the_deployed_models() -> None:
    models = [_Model("DEPLOYED"), _Model("DEPLOY_FAILED"), _Model("DEPLOYED")]
    assert registration_counts(models) == {"models": 3.0, "deployed": 2.0}


def test_the_stored_form_fits_the_strict_mapping_and_reads_back() -> None:
    [template] = [
        r
        for r in load_resources(load_settings(environ={}))
        if r.kind is ResourceKind.INDEX_TEMPLATE and r.name == TEMPLATE_NAME
    ]
    assert template.body["index_patterns"] == ["jobs*"]
    mappings = template.body["template"]["mappings"]
    assert mappings["dynamic"] == "strict"
    record = failed(running(_queued(), now=T0), "error", "ValueError: bad", {"documents": 1}, now=T0)
    stored = document(record)
    assert set(stored) == set(mappings["properties"])
    assert stored["queued_at"] == "2026-11-24T10:00:00Z"
    assert from_document(stored) == record
