"""The scheduled evaluation: an APScheduler BackgroundScheduler job from the `schedule` settings
(cron or interval), started by the API app, that runs, stores and gauges the configured suite.

One run at a time (max_instances=1, coalesced): a run that overruns the interval is not stacked.
A failed run is logged and the schedule goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.settings import EvaluationSettings, ScheduleSettings
from control_plane.evaluation.store import EvalRunStore

if TYPE_CHECKING:
    from control_plane.ledger.store import JobLedger
    from control_plane.search.service import SearchService

log = logging.getLogger(__name__)
JOB_ID = "biohybrid-evaluation"


def build_trigger(schedule: ScheduleSettings) -> BaseTrigger:
    """A cron trigger from a crontab line (checked when the settings load), or an interval trigger."""
    if schedule.cron is not None:
        return CronTrigger.from_crontab(schedule.cron, timezone="UTC")
    if schedule.interval_s is None:
        raise ValueError("schedule needs cron or interval_s")
    return IntervalTrigger(seconds=schedule.interval_s, timezone="UTC")


def start_schedule(job: Callable[[], object], schedule: ScheduleSettings) -> BackgroundScheduler | None:
    """Start a background scheduler running ``job`` on the schedule; None when the schedule is disabled.
    The caller stops it with ``scheduler.shutdown()``."""
    if not schedule.enabled:
        return None
    scheduler = BackgroundScheduler(timezone="UTC")
    first = {"next_run_time": datetime.now(UTC)} if schedule.run_at_start else {}
    scheduler.add_job(
        job, build_trigger(schedule), id=JOB_ID, name=JOB_ID, max_instances=1, coalesce=True, **first
    )
    scheduler.start()
    return scheduler


def evaluation_job(
    service: SearchService,
    store: EvalRunStore,
    settings: EvaluationSettings,
    gauges: EvaluationGauges | None,
    ledger: JobLedger | None = None,
) -> Callable[[], None]:
    """The scheduled work: the configured suite run, stored and gauged, recorded in the job ledger (origin
    scheduler); failures logged, not raised."""
    from control_plane.evaluation.api import EvaluateRequest, evaluate
    from control_plane.ledger.records import evaluation_counts
    from control_plane.ledger.tracking import tracked

    schedule = settings.schedule
    request = EvaluateRequest(
        test_set_id=schedule.test_set_id,
        configurations=schedule.configurations,
        metrics=schedule.metrics,
        limit=schedule.limit,
    )

    def run() -> None:
        try:
            result = tracked(
                ledger,
                "evaluation",
                settings.tenant_id,
                "scheduler",
                lambda _: evaluate(request, service, store, settings=settings, gauges=gauges),
                detail={"test_set_id": schedule.test_set_id},
                counts_of=evaluation_counts,
            )
        except ValueError as exc:  # a setup the operator must fix (e.g. the corpus is not indexed yet)
            log.warning(
                "scheduled evaluation skipped",
                extra={"test_set_id": schedule.test_set_id, "reason": str(exc)},
            )
            return
        except Exception:  # the schedule must survive a failed run; the log says why
            log.exception("scheduled evaluation failed", extra={"test_set_id": schedule.test_set_id})
            return
        log.info(
            "scheduled evaluation done",
            extra={"run_id": result.run_id, "alerts": result.alerts, "test_set_id": result.test_set_id},
        )

    return run


def start_evaluation_schedule(
    service: SearchService,
    settings: EvaluationSettings,
    gauges: EvaluationGauges | None,
    ledger: JobLedger | None = None,
) -> BackgroundScheduler | None:
    """For the API app: start the configured schedule (None when disabled)."""
    store = EvalRunStore(service.client, service.settings, settings.store.index)
    return start_schedule(evaluation_job(service, store, settings, gauges, ledger), settings.schedule)
