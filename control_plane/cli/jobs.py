"""`jobs list|show`: the job ledger (the ``jobs`` index): ingest, model registration and evaluation jobs
from the API, the CLI and the schedule, newest first."""

from __future__ import annotations

import argparse
import json
import sys

from control_plane.cli.common import EXIT_DRIFT, Subcommands, guide
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.ledger.records import JOB_KINDS, JOB_STATES, JobRecord, document
from control_plane.ledger.store import MAX_PAGE, JobLedger


def add_parsers(commands: Subcommands) -> None:
    jobs = commands.add_parser(
        "jobs",
        epilog=guide("api/jobs-and-events.md"),
        help="list or show recorded jobs (ingest, model registration, evaluation) from the jobs index",
        description="The job ledger: one record per job with its state (queued, running, done, failed "
        "with a reason), counts and timings. `jobs list` shows the newest first; `jobs show ID` one job.",
    )
    actions = jobs.add_subparsers(dest="jobs_action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="jobs, newest first", epilog=guide("api/jobs-and-events.md"))
    listing.add_argument("--kind", choices=JOB_KINDS, help="only this kind")
    listing.add_argument("--state", choices=JOB_STATES, help="only this state")
    listing.add_argument("--tenant", help="only this tenant's jobs (default: every tenant)")
    listing.add_argument("--size", type=int, default=20, help=f"jobs per page (1-{MAX_PAGE}, default 20)")
    listing.add_argument("--from", dest="offset", type=int, default=0, help="skip this many (paging)")
    listing.add_argument("--json", action="store_true", help="print the page as JSON")
    listing.set_defaults(handler=_list)
    show = actions.add_parser("show", help="one job's record", epilog=guide("api/jobs-and-events.md"))
    show.add_argument(
        "job_id", metavar="ID", help="the job's id (as `jobs list` or the API's 202 answer shows it)"
    )
    show.add_argument("--tenant", help="refuse a job of another tenant")
    show.add_argument("--json", action="store_true", help="print the record as JSON")
    show.set_defaults(handler=_show)


def describe(record: JobRecord) -> str:
    """One line per job: id, kind, state (and reason), tenant, when queued, how long, the counts."""
    state = f"{record.state}({record.reason})" if record.reason else record.state
    took = f"{record.duration_ms / 1000:.1f}s" if record.duration_ms is not None else "-"
    counts = " ".join(f"{k}={v:g}" for k, v in sorted(record.counts.items()))
    return (
        f"{record.job_id:<14} {record.kind:<18} {state:<24} {record.tenant_id:<12} "
        f"{record.queued_at.isoformat(timespec='seconds')} {took:>8} {counts}"
    ).rstrip()


def _list(settings: Settings, args: argparse.Namespace) -> int:
    if not 1 <= args.size <= MAX_PAGE or args.offset < 0:
        print(f"error: --size must be 1-{MAX_PAGE} and --from at least 0", file=sys.stderr)
        return 2
    ledger = JobLedger(make_client(settings.opensearch), settings)
    page = ledger.list(args.tenant, args.kind, args.state, args.offset, args.size)
    if args.json:
        jobs = [document(record) for record in page.jobs]
        print(
            json.dumps({"total": page.total, "from": page.offset, "size": page.size, "jobs": jobs}, indent=2)
        )
        return 0
    for record in page.jobs:
        print(describe(record))
    print(f"{len(page.jobs)} of {page.total} job(s) in {ledger.index} (from {page.offset})")
    return 0


def _show(settings: Settings, args: argparse.Namespace) -> int:
    ledger = JobLedger(make_client(settings.opensearch), settings)
    record = ledger.get(args.job_id, args.tenant)
    if record is None:
        print(f"error: no job {args.job_id!r} in {ledger.index}", file=sys.stderr)
        return EXIT_DRIFT
    if args.json:
        print(json.dumps(document(record), indent=2))
    else:
        for key, value in document(record).items():
            print(f"{key:<12} {value}")
    return 0
