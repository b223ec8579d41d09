"""Command line of the fusion-stability benchmark: pair, search, measure, then write the report and plot."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from benchmarks import fusion_stability
from benchmarks.fusion_stability.compute import (
    COMPARED,
    METRIC,
    build_pairs,
    compare,
    index_size,
    measure_configuration,
    paired_plan,
    search,
)
from benchmarks.fusion_stability.render import plot
from benchmarks.fusion_stability.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import ConfigError, load_settings
from control_plane.evaluation.runner import EvaluationError
from control_plane.evaluation.service_retriever import SearchServiceRetriever, evaluation_service
from control_plane.evaluation.suite import plan_suite
from control_plane.measures.stability import MEASURES, PairRule
from control_plane.reports.machine import describe_machine

DEFAULT_CONFIGURATIONS = "hybrid-rrf,hybrid-minmax,bm25,splade,dense"
PROG = "python -m benchmarks.fusion_stability"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG, description=fusion_stability.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", default="scifact/train", help="test set id (train/dev splits)")
    parser.add_argument("--configurations", default=DEFAULT_CONFIGURATIONS, help="comma-separated names")
    parser.add_argument("--out", type=Path, required=True, help="markdown report; the PNG goes beside it")
    parser.add_argument("--max-pairs-per-set", type=int, default=PairRule().max_pairs_per_set)
    parser.add_argument("--eval-config", help="evaluation settings file (default: packaged evaluation.yaml)")
    parser.add_argument("--tenant", help="tenant to search as (default: the evaluation settings')")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    from control_plane.evaluation.settings import load_evaluation_settings
    from control_plane.testsets.catalog import load_test_set

    args = _arguments(argv)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    rule = PairRule(max_pairs_per_set=args.max_pairs_per_set)
    try:
        settings = load_settings()
        evaluation = load_evaluation_settings(args.eval_config)
        names = [name.strip() for name in args.configurations.split(",") if name.strip()]
        plan = plan_suite(evaluation, args.test_set, names, [METRIC])
        index = evaluation.index_for(plan.evaluation_set.dataset)
        test_set = load_test_set(args.test_set)
        texts = {q.query_id: q.text for q in test_set.queries()}
        pair_set = build_pairs(test_set.qrels(), texts, rule)
        if not pair_set.pairs:
            raise ValueError(f"no paraphrase pairs in {args.test_set} under the rule: {rule.describe()}")
        plan = paired_plan(plan, pair_set)
    except (ConfigError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    client = make_client(settings.opensearch)
    service = evaluation_service(client, settings, evaluation.timeouts)
    retriever = SearchServiceRetriever(
        service, args.tenant or evaluation.tenant_id, index, evaluation.candidate_depth
    )
    try:
        suite = search(plan, retriever, evaluation.depth, args.no_progress)
    except EvaluationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    results = [measure_configuration(r, pair_set) for r in suite.results]
    by_name = {r.name: r for r in results}
    comparisons = (
        compare(
            by_name[COMPARED[0]],
            by_name[COMPARED[1]],
            pair_set.groups,
            evaluation.significance.permutations,
            evaluation.significance.seed,
        )
        if all(name in by_name for name in COMPARED)
        else None
    )
    chunks, documents = index_size(client, index)
    machine = describe_machine(f"OpenSearch {client.info()['version']['number']}")
    header = Header(
        run=finished_run(PROG, argv, load_before, seconds=time.perf_counter() - started, machine=machine),
        test_set_id=args.test_set,
        index=index,
        index_chunks=chunks,
        index_documents=documents,
        depth=evaluation.depth,
        candidate_depth=evaluation.candidate_depth,
        rule=rule,
        permutations=evaluation.significance.permutations,
        seed=evaluation.significance.seed,
        alpha=evaluation.significance.alpha,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot_path = args.out.with_suffix(".png")
    plot(results, plot_path)
    args.out.write_text(render_report(header, pair_set, results, comparisons, plot_path.name) + "\n", "utf-8")
    for r in results:
        figures = "  ".join(f"{name} {r.means[name]:.4f}" for name in MEASURES)
        print(f"{r.name:16} {figures}  mean {METRIC} {r.mean_metric:.4f}")
    print(f"report: {args.out}, plot: {plot_path}")
    return 0
