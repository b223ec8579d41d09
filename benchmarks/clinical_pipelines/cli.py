"""Command line of the clinical-pipelines benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import clinical_pipelines
from benchmarks.clinical_pipelines import measure as measured
from benchmarks.clinical_pipelines.compute import (
    latency,
    latency_verdict,
    relevance_verdicts,
    throughput,
)
from benchmarks.clinical_pipelines.measure import (
    FUSIONS,
    concurrent_run,
    direct,
    interleaved,
    plain_query,
    rankers,
    relevance,
)
from benchmarks.clinical_pipelines.report import Findings, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings, load_settings
from control_plane.progress import progress_bar
from control_plane.query.components import text_hybrid_query
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.clinical_pipelines"
BASELINE = "hybrid-minmax, README query (query_text)"
PIPELINE = "clinical-minmax, plain question"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=clinical_pipelines.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--split",
        action="append",
        required=True,
        help="a clinical split (repeat); the first, a non-test split, is also timed",
    )
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--timed-questions", type=int, default=100, help="questions in the latency run")
    parser.add_argument("--throughput-questions", type=int, default=40, help="questions each client sends")
    parser.add_argument("--out", type=Path, required=True)
    return parser


def _connected(
    calls: Callable[[Any], dict[str, Callable[[str], object]]], settings: Settings, label: str
) -> Callable[[], Callable[[str], object]]:
    """A factory of ``label``'s call, each on its own client (a client thread's own connections)."""
    return lambda: calls(make_client(settings.opensearch))[label]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.split[0]):
        parser.error("the first --split is timed: name a non-test split first")
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    service = SearchService(client, settings)
    depth = settings.search.candidate_depth

    found = []
    steps = [(split, fusion) for split in args.split for fusion in FUSIONS]
    with progress_bar(total=len(steps), desc="relevance", unit="split x fusion") as bar:
        for split, fusion in steps:
            found.append(relevance(split, fusion, rankers(client, service, args.index, fusion, depth)))
            bar.update()

    texts = [q.text for q in load_test_set(args.split[0]).queries()]

    def calls(c: Any) -> dict[str, Callable[[str], object]]:
        return {
            BASELINE: lambda t: direct(
                c, args.index, "hybrid-minmax", text_hybrid_query(t, pagination_depth=depth)
            ),
            PIPELINE: lambda t: direct(c, args.index, "clinical-minmax", plain_query(t)),
        }

    timed = interleaved(calls(client), texts[: args.timed_questions + 1])
    latencies = {label: latency(samples) for label, samples in timed.items()}
    batch = texts[: args.throughput_questions]
    rates: dict[str, dict[int, float]] = {}
    for label in (BASELINE, PIPELINE):
        for clients in (1, 4):
            seconds = concurrent_run(_connected(calls, settings, label), batch, clients)
            rates.setdefault(label, {})[clients] = throughput(clients * len(batch), seconds)

    verdicts = [
        v
        for r in found
        for v in relevance_verdicts(
            r.split,
            r.fusion,
            r.ndcg[measured.README],
            r.ndcg[measured.PIPELINE],
            r.ndcg[measured.API],
        )
    ]
    verdicts.append(latency_verdict(latencies[PIPELINE], latencies[BASELINE]))
    findings = Findings(
        relevance=tuple(found),
        latency=latencies,
        throughput=rates,
        verdicts=tuple(verdicts),
        latency_questions=f"{len(timed[PIPELINE])} {args.split[0]} questions",
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        render_report(findings, finished_run(PROG, argv, load_before), args.index), encoding="utf-8"
    )
    print(f"wrote {args.out}")
    return 0
