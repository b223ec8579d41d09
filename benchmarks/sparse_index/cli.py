"""Command line of the sparse-index benchmark: build the variant indices and the doc-only model, run the
configurations, then write the report and the plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import sparse_index
from benchmarks.arguments import non_test_split
from benchmarks.run_stamp import finished_run
from benchmarks.sparse_index.compute import SplitFigures, doc_only_vs_bi_encoder, split_rows
from benchmarks.sparse_index.measure import (
    EncodedQuery,
    Targets,
    run_queries,
    two_phase_changes_hybrid,
)
from benchmarks.sparse_index.render import plotted, render_plot
from benchmarks.sparse_index.report import Header, render_report
from benchmarks.sparse_index.variants import build_variant, doc_only_model, method_settings
from control_plane.cluster.client import make_client, opensearch_session
from control_plane.config.search_settings import SparseTwoPhaseSettings
from control_plane.config.settings import Settings, load_settings
from control_plane.models.sparse import SparseEncoder, token_id_vocabulary
from control_plane.query.components import SparseAnn, token_id_weights
from control_plane.search.request import inline_pipeline
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.sparse_index"
DEFAULT_SPLITS = [("nfcorpus/dev", "chunks-nfcorpus"), ("scifact/train", "chunks-scifact")]
# Below the corpus sizes measured, so SEISMIC approximates here (OpenSearch's default, 1,000,000 documents
# per segment, would search these indices exactly).
BENCH_APPROXIMATE_THRESHOLD = 1000
HYBRID_CHECK_QUERIES = 20  # queries on which the two-phase processor is tried inside a hybrid query


@dataclass(frozen=True)
class SplitPlan:
    """One split to run: the test set whose queries are sent, the chunk index they go to, and whether
    the test set's judgments are about that index (False for ``--unjudged``: latency and overlap only)."""

    test_set_id: str
    index: str
    judged: bool


def planned_splits(
    split: Sequence[tuple[str, str]] | None, unjudged: Sequence[tuple[str, str]] | None
) -> list[SplitPlan]:
    """``--split`` then ``--unjudged``, in the order given; the default splits only when neither is given
    (an ``--unjudged`` run alone should not pay for the small judged ones too)."""
    if not split and not unjudged:
        split = DEFAULT_SPLITS
    return [SplitPlan(t, i, judged=True) for t, i in split or ()] + [
        SplitPlan(t, i, judged=False) for t, i in unjudged or ()
    ]


def _arguments(argv: list[str] | None, settings: Settings) -> argparse.Namespace:
    sparse, two = settings.index.sparse, settings.search.sparse_two_phase
    parser = argparse.ArgumentParser(
        prog=PROG, description=sparse_index.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split",
        type=non_test_split,
        metavar="TEST_SET=INDEX",
        action="append",
        help="repeatable; default, when neither --split nor --unjudged is given: "
        + ", ".join(f"{t}={i}" for t, i in DEFAULT_SPLITS),
    )
    parser.add_argument(
        "--unjudged",
        type=non_test_split,
        metavar="QUERY_SET=INDEX",
        action="append",
        help="repeatable: QUERY_SET's query texts over an INDEX without judgments "
        "(e.g. nfcorpus/dev=chunks-medline-full); overlap@100 and latency only",
    )
    parser.add_argument("--out", type=Path, default=Path("model_artifacts/reports/sparse-index.md"))
    parser.add_argument("--depth", type=int, default=settings.search.candidate_depth, help="chunks per query")
    parser.add_argument(
        "--limit", type=int, help="only the first N queries of each split, judged or not (development)"
    )
    parser.add_argument("--warmup", type=int, default=20, help="unrecorded queries per configuration first")
    parser.add_argument("--rebuild", action="store_true", help="copy the variant indices again")
    parser.add_argument("--no-plot", action="store_true")
    parser.add_argument("--n-postings", type=int, default=sparse.n_postings)
    parser.add_argument("--cluster-ratio", type=float, default=sparse.cluster_ratio)
    parser.add_argument("--summary-prune-ratio", type=float, default=sparse.summary_prune_ratio)
    parser.add_argument("--approximate-threshold", type=int, default=BENCH_APPROXIMATE_THRESHOLD)
    parser.add_argument("--top-n", type=int, default=sparse.top_n)
    parser.add_argument("--heap-factor", type=float, default=sparse.heap_factor)
    parser.add_argument("--prune-ratio", type=float, default=two.prune_ratio)
    parser.add_argument("--expansion-rate", type=float, default=two.expansion_rate)
    parser.add_argument("--max-window-size", type=int, default=two.max_window_size)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    load_before = os.getloadavg()[0]
    settings = load_settings()
    args = _arguments(argv, settings)
    client = make_client(settings.opensearch)
    session = opensearch_session(settings.opensearch)
    url = settings.opensearch.hosts[0]
    seismic_index: dict[str, Any] = {
        "n_postings": args.n_postings,
        "cluster_ratio": args.cluster_ratio,
        "summary_prune_ratio": args.summary_prune_ratio,
        "approximate_threshold": args.approximate_threshold,
    }
    ann = SparseAnn(top_n=args.top_n, heap_factor=args.heap_factor, k=args.depth)
    two_phase = SparseTwoPhaseSettings(
        enabled=True,
        prune_ratio=args.prune_ratio,
        expansion_rate=args.expansion_rate,
        max_window_size=args.max_window_size,
    )
    encoder = SparseEncoder.load(settings.models.sparse)
    vocabulary = token_id_vocabulary(settings.models.sparse)
    tokenizer_path = Path(encoder.model.files.tokenizer)
    rrf_pipeline = inline_pipeline(settings, "rrf", None, ["bm25", "splade"], 60)
    splits: list[SplitFigures] = []
    for plan in planned_splits(args.split, args.unjudged):
        started = time.perf_counter()
        test_set_id, index = plan.test_set_id, plan.index
        test_set = load_test_set(test_set_id)
        queries = list(test_set.queries())[: args.limit]
        # The test set judges its own corpus, not an --unjudged INDEX's chunks: no qrels there.
        qrels = {q.query_id: test_set.qrels()[q.query_id] for q in queries} if plan.judged else None
        variants = tuple(
            build_variant(
                client,
                method_settings(settings, method, seismic_index),
                index,
                vocabulary if method == "seismic" else None,
                rebuild=args.rebuild,
            )
            for method in ("rank_features", "seismic")
        )
        model_id = doc_only_model(client, settings, index, tokenizer_path)
        words = encoder.encode([q.text for q in queries])
        encoded = [
            EncodedQuery(q.query_id, q.text, w, token_id_weights(w, vocabulary))
            for q, w in zip(queries, words, strict=True)
        ]
        targets = Targets(variants[0].name, variants[1].name, model_id, ann, two_phase, args.depth)
        samples = run_queries(session, url, encoded, targets, warmup=min(args.warmup, len(encoded)))
        rows = split_rows(samples, qrels, args.depth)
        hybrid = two_phase_changes_hybrid(session, url, encoded[:HYBRID_CHECK_QUERIES], targets, rrf_pipeline)
        seconds = time.perf_counter() - started
        encodings = doc_only_vs_bi_encoder(samples, qrels) if qrels is not None else ()
        splits.append(
            SplitFigures(
                test_set_id, index, len(queries), args.depth, variants, rows, seconds, hybrid, encodings
            )
        )
    plot = None if args.no_plot or not plotted(splits) else args.out.with_suffix(".png")
    if plot is not None:
        render_plot(splits, plot)
    header = Header(
        run=finished_run(PROG, argv, load_before),
        opensearch=str(client.info()["version"]["number"]),
        seismic_index={k: ("OpenSearch default" if v is None else v) for k, v in seismic_index.items()},
        seismic_query=ann,
        two_phase=two_phase,
        warmup=args.warmup,
        plot=plot.name if plot is not None else None,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(splits, header), encoding="utf-8")
    print(f"report written to {args.out}")
    return 0
