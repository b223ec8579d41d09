"""Command line of the exact-reference benchmark: measure OpenSearch and the exact reference, compare,
then write the report."""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from benchmarks import exact_reference
from benchmarks.exact_reference.figures import KNN_RECALL_K, Options, compare, mean
from benchmarks.exact_reference.measure import (
    PIPELINE_FILES,
    describe_knn,
    encode_queries,
    inline_pipeline,
    measure_lists,
)
from benchmarks.exact_reference.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.exact import ExactIndex, FusionParameters
from control_plane.evaluation.snapshot import cached_snapshot
from control_plane.query.components import COMPONENT_ORDER
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.exact_reference"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=PROG, description=exact_reference.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index", default="chunks-nfcorpus", help="one concrete index to compare")
    parser.add_argument(
        "--test-set", default="nfcorpus/dev", help="test set id (nfcorpus/dev, nfcorpus/test)"
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report to write")
    parser.add_argument("--candidate-depth", type=int, default=300, help="chunks per component")
    parser.add_argument("--depth", type=int, default=100, help="documents per query in the runs")
    parser.add_argument(
        "--ef-search", type=int, help="k-NN ef_search of OpenSearch's runs (default: index's)"
    )
    parser.add_argument("--limit", type=int, help="only the first N queries (development)")
    args = parser.parse_args(argv)
    if args.candidate_depth < KNN_RECALL_K or args.depth < 1:
        parser.error(f"--candidate-depth must be ≥ {KNN_RECALL_K} and --depth ≥ 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    load_before = os.getloadavg()[0]
    started = time.perf_counter()
    settings = load_settings()
    client = make_client(settings.opensearch)
    options = Options(args.index, args.candidate_depth, args.depth, args.ef_search)
    test_set = load_test_set(args.test_set)
    queries = list(test_set.queries())[: args.limit]
    judged = test_set.qrels()
    qrels = {q.query_id: judged[q.query_id] for q in queries}  # --limit: only the queries run
    snapshot = cached_snapshot(client, options.index)
    index = ExactIndex(snapshot)
    encoded = encode_queries(client, options.index, queries, settings)
    parameters = FusionParameters(
        weights=dict(zip(COMPONENT_ORDER, settings.fusion.weights.in_order(), strict=True)),
        rank_constant=settings.fusion.rrf.rank_constant,
    )
    pipelines = {name: inline_pipeline(settings, file) for name, file in PIPELINE_FILES.items()}
    lists = measure_lists(client, options, index, encoded, pipelines)
    figures = compare(lists, index.doc_of, parameters, qrels, options)
    run = finished_run(PROG, argv, load_before, seconds=time.perf_counter() - started)
    header = Header(
        run,
        options,
        args.test_set,
        len(queries),
        snapshot.key,
        parameters,
        describe_knn(client, options.index),
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(figures, header), encoding="utf-8")
    print(f"k-NN Recall@{KNN_RECALL_K} {mean(figures.knn_recall):.4f}; report written to {args.out}")
    return 0
