"""Command line of the clinical-relevance benchmark: capture each fusion method's searches once, score
every routing variant, write the report and its plot."""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks import clinical_relevance
from benchmarks.clinical_relevance.compute import fusion_figures
from benchmarks.clinical_relevance.measure import capture, detection, end_to_end
from benchmarks.clinical_relevance.render import plot_groups
from benchmarks.clinical_relevance.report import Header, render_report
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.fusion.methods import FusionMethod
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import load_test_set

PROG = "python -m benchmarks.clinical_relevance"
FUSIONS: tuple[FusionMethod, ...] = ("rrf", "weighted")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=clinical_relevance.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--test-set", default="clinical/dev")
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--tenant", default="default")
    parser.add_argument("--grid", action="store_true", help="also search the routing grid (dev only)")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (a .png beside it)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.grid and not args.test_set.endswith("/dev"):
        parser.error("--grid chooses settings: run it on a dev split only")

    load_before = os.getloadavg()[0]
    settings = load_settings()
    chosen = settings.search.section_routing
    service = SearchService(make_client(settings.opensearch), settings)
    test_set = load_test_set(args.test_set)
    queries = list(test_set.queries())
    qrels = test_set.qrels()
    started = time.perf_counter()
    fusions = []
    for fusion in FUSIONS:
        captured = capture(service, settings, queries, fusion, args.index, args.tenant)
        served = end_to_end(service, queries, fusion, args.index, args.tenant)
        fusions.append(fusion_figures(fusion, captured, served, qrels, chosen, args.grid))
    detected = detection(queries, settings)
    plot_path = args.out.with_suffix(".png")
    plot_groups(fusions, plot_path)
    header = Header(
        run=finished_run(PROG, argv, load_before, seconds=time.perf_counter() - started),
        test_set=args.test_set,
        queries=len(queries),
        index=args.index,
        routing=chosen,
        plot_name=plot_path.name,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_report(header, fusions, detected), encoding="utf-8")
    print(args.out)
    return 0
