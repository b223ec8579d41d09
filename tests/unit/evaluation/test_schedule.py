"""The schedule: triggers from settings, and a real background scheduler running a job."""

from __future__ import annotations

import threading

from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from control_plane.evaluation.schedule import build_trigger, start_schedule
from control_plane.evaluation.settings import ScheduleSettings


def test_cron_and_interval_triggers() -> None:
    cron = build_trigger(ScheduleSettings(cron="30 2 * * 1"))
    assert isinstance(cron, CronTrigger)
    assert {f.name: str(f) for f in cron.fields}["hour"] == "2"
    interval = build_trigger(ScheduleSettings(cron=None, interval_s=90))
    assert isinstance(interval, IntervalTrigger) and interval.interval.total_seconds() == 90


def test_disabled_schedule_starts_nothing() -> None:
    assert start_schedule(lambda: None, ScheduleSettings(enabled=False)) is None


def test_enabled_schedule_runs_the_job_repeatedly() -> None:
    runs: list[int] = []
    done = threading.Event()

    def job() -> None:
        runs.append(1)
        if len(runs) >= 2:
            done.set()

    scheduler = start_schedule(job, ScheduleSettings(enabled=True, cron=None, interval_s=0.1))
    assert scheduler is not None
    try:
        assert done.wait(timeout=5), "the job did not run twice in 5 s"
    finally:
        scheduler.shutdown(wait=True)
    assert len(runs) >= 2
