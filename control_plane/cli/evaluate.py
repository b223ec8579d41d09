"""`evaluate`: run configurations over a test set through SearchService; write TREC runs, results and
a report (markdown + plots); store the run in eval-runs and compare it with the stored baseline."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from control_plane.cli.common import EXIT_CLUSTER, EXIT_CONFIG, EXIT_DRIFT, Subcommands, guide
from control_plane.config.settings import ENV_CONFIG_FILE, ConfigError, Settings

if TYPE_CHECKING:
    from opensearchpy import OpenSearch

    from control_plane.evaluation.api import ConfigurationSummary
    from control_plane.evaluation.settings import EvaluationSettings
    from control_plane.evaluation.suite import SuitePlan
    from control_plane.ledger.tracking import JobTracker

DEFAULT_OUT = Path(".local") / "evaluation"


def add_parsers(commands: Subcommands) -> None:
    evaluate = commands.add_parser(
        "evaluate",
        epilog=guide("evaluation/index.md"),
        help="evaluate retrieval configurations on a test set (runs, metrics, report, eval-runs)",
        description="Search every judged query of a test set with each configuration (through the same "
        "SearchService as /v1/search, at document level), then write TREC run files, results.json and "
        "report.md with plots under --out/<run id>/, store the run in the eval-runs index and compare "
        "the alert metric with the stored baseline. Configurations are named in "
        "control_plane/config/evaluation.yaml; add variants with +rerank, +rerank@N "
        "(rerank only the fused top N) and +boosts.",
    )
    evaluate.add_argument("test_set", help="test set id: nfcorpus/dev, nfcorpus/stratified, <folder>:<split>")
    evaluate.add_argument(
        "--configurations", help="comma-separated names, e.g. bm25,hybrid-rrf+rerank (default: the suite)"
    )
    evaluate.add_argument("--metrics", help="comma-separated, e.g. ndcg@10,recall@100 (default: configured)")
    evaluate.add_argument("--limit", type=int, help="only the first N judged queries")
    evaluate.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})"
    )
    evaluate.add_argument(
        "--eval-config", help="evaluation settings file (default: packaged evaluation.yaml)"
    )
    evaluate.add_argument("--tenant", help="tenant to search as (default: the evaluation settings')")
    evaluate.add_argument("--no-store", action="store_true", help="do not store the run in eval-runs")
    evaluate.add_argument(
        "--mark-baseline", action="store_true", help="make this run the baseline of each configuration"
    )
    evaluate.add_argument(
        "--fail-on-alert", action="store_true", help=f"exit {EXIT_DRIFT} when a configuration alerts"
    )
    evaluate.add_argument("--no-progress", action="store_true", help="no progress bar")
    evaluate.set_defaults(handler=_evaluate)


def command_line(args: argparse.Namespace) -> str:
    """The command as it can be typed again (the report states it)."""
    words = ["biohybrid"]
    if args.config:
        words += ["--config", args.config]
    words += ["evaluate", args.test_set]
    for flag in ("configurations", "metrics", "limit", "eval_config", "tenant"):
        value = getattr(args, flag)
        if value is not None:
            words += [f"--{flag.replace('_', '-')}", str(value)]
    if args.out != DEFAULT_OUT:
        words += ["--out", str(args.out)]
    words += [f"--{flag}" for flag in ("no-store", "mark-baseline") if getattr(args, flag.replace("-", "_"))]
    prefix = f"{ENV_CONFIG_FILE}={os.environ[ENV_CONFIG_FILE]} " if ENV_CONFIG_FILE in os.environ else ""
    return prefix + shlex.join(words)


def _names(text: str | None) -> list[str] | None:
    return [name.strip() for name in text.split(",") if name.strip()] if text else None


def _evaluate(settings: Settings, args: argparse.Namespace) -> int:

    from control_plane.cli.recording import recording
    from control_plane.cluster.client import make_client
    from control_plane.evaluation.settings import load_evaluation_settings
    from control_plane.evaluation.suite import plan_suite
    from control_plane.ledger.tracking import JobTracker
    from control_plane.search.index_choice import search_index

    if args.no_store and args.mark_baseline:
        print("error: --mark-baseline needs the run stored: drop --no-store", file=sys.stderr)
        return EXIT_CONFIG
    try:
        evaluation = load_evaluation_settings(args.eval_config)
        plan = plan_suite(
            evaluation, args.test_set, _names(args.configurations), _names(args.metrics), args.limit
        )
        index = evaluation.index_for(plan.evaluation_set.dataset)
        tenant = args.tenant or evaluation.tenant_id
        search_index(settings, tenant, index)  # with index.tenant_indices on: the tenant's index only
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    client = make_client(settings.opensearch)
    with recording(settings, client) as recorded_job:
        tracker = JobTracker.open(
            recorded_job.ledger, "evaluation", tenant, "cli", {"test_set_id": args.test_set, "index": index}
        )
        tracker.running()
        try:
            return _execute(settings, args, client, plan, evaluation, index, tenant, tracker)
        except BaseException as exc:
            tracker.failed(exc)
            raise


def _execute(
    settings: Settings,
    args: argparse.Namespace,
    client: OpenSearch,
    plan: SuitePlan,
    evaluation: EvaluationSettings,
    index: str,
    tenant: str,
    tracker: JobTracker,
) -> int:
    """Run, write, store and report the planned suite; the job's end goes to the ledger."""
    import socket

    from control_plane.evaluation.api import result_of
    from control_plane.evaluation.provenance import collect_versions
    from control_plane.evaluation.runner import EvaluationError
    from control_plane.evaluation.service_retriever import SearchServiceRetriever, evaluation_service
    from control_plane.evaluation.store import EvalRunStore, RunContext
    from control_plane.evaluation.suite import execute, record
    from control_plane.ledger.records import evaluation_counts
    from control_plane.progress import progress_bar
    from control_plane.testsets.catalog import write_trec_run

    service = evaluation_service(client, settings, evaluation.timeouts)
    retriever = SearchServiceRetriever(service, tenant, index, evaluation.candidate_depth)
    baseline_added = plan.baseline.name not in {c.name for c in plan.configurations}
    runs = len(plan.configurations) + int(baseline_added)
    bar = progress_bar(
        total=runs * len(plan.evaluation_set.queries), unit="query", disable=args.no_progress, file=sys.stderr
    )

    def progress(configuration: str, done: int, total: int) -> None:
        bar.set_description(configuration, refresh=False)
        bar.update(1)

    try:
        suite = execute(plan, retriever, evaluation, progress)
    except EvaluationError as exc:
        tracker.failed(exc)
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CLUSTER
    finally:
        bar.close()

    out_dir = args.out / suite.run_id
    (out_dir / "runs").mkdir(parents=True, exist_ok=True)
    run_files = []
    for result in suite.results:
        name = f"runs/{result.name}.trec"
        write_trec_run(result.run, out_dir / name, tag=result.name)
        run_files.append(name)

    models, templates = collect_versions(client, settings)
    command = command_line(args)
    context = RunContext(index, tenant, models, templates, socket.gethostname(), command)
    store = None if args.no_store else EvalRunStore(client, settings, evaluation.store.index)
    recorded = record(suite, store, context, None, evaluation)
    if store is not None and args.mark_baseline:
        for result in suite.results:
            store.mark_baseline(suite.run_id, result.name)
    summary = result_of(suite, recorded, index, store is not None, evaluation.significance.alpha)
    tracker.done(evaluation_counts(summary))
    (out_dir / "results.json").write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")

    from control_plane.evaluation.report import write_report
    from control_plane.reports.machine import describe_machine

    report = write_report(
        suite,
        out_dir,
        command=command,
        machine=describe_machine(f"OpenSearch {client.info()['version']['number']}"),
        alpha=evaluation.significance.alpha,
        depth=evaluation.depth,
        candidate_depth=evaluation.candidate_depth,
        index=index,
        stratification=plan.evaluation_set.stratification,
        run_files=run_files,
    )
    _print_summary(summary.configurations, suite.metrics)
    print(f"report: {report}")
    for name in summary.alerts:
        print(
            f"ALERT {name}: {evaluation.alert.metric} fell more than {evaluation.alert.margin} below baseline"
        )
    return EXIT_DRIFT if args.fail_on_alert and summary.alerts else 0


def _print_summary(configurations: list[ConfigurationSummary], metrics: tuple[str, ...]) -> None:
    print("configuration".ljust(28) + "".join(m.rjust(12) for m in metrics))
    for item in configurations:
        print(item.configuration.ljust(28) + "".join(f"{item.metrics[m]:12.4f}" for m in metrics))
    for item in configurations:
        if item.degraded_detail:
            reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(item.degraded_queries.items()))
            print(f"degraded {item.configuration}: {len(item.degraded_detail)} queries ({reasons})")
