"""Command line of the client-forms benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks import client_forms
from benchmarks.client_forms.compute import FormVerdict
from benchmarks.client_forms.forms import FORMS, PLAIN, SOURCES_KEPT
from benchmarks.client_forms.libraries import LIBRARIES
from benchmarks.client_forms.measure import (
    Ranker,
    breakdown_pipelines,
    form_ranker,
    mean_ndcg,
    plain_kept_ranker,
    timed_calls,
)
from benchmarks.client_forms.report import Findings, render_report
from benchmarks.clinical_pipelines.compute import latency
from benchmarks.clinical_pipelines.measure import interleaved
from benchmarks.run_stamp import finished_run
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.progress import progress_bar
from control_plane.testsets.catalog import is_test_split, load_test_set

PROG = "python -m benchmarks.client_forms"
FUSIONS = ("minmax", "rrf")


def _kept(form: str) -> str:
    """The label of a source-narrowing form's reference: the plain form kept to its sources."""
    return f"plain form kept to the sources of '{form}'"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=client_forms.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", action="append", required=True, help="a clinical split to score (repeat)")
    parser.add_argument(
        "--timed-split", default="clinical-natural/dev", help="the split timed (not a test split)"
    )
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--timed-questions", type=int, default=100, help="questions in the latency run")
    parser.add_argument("--out", type=Path, required=True)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if is_test_split(args.timed_split):
        parser.error(f"--timed-split {args.timed_split} is a test split: time a dev or train split")
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    url = settings.opensearch.url

    steps = [(split, fusion) for split in args.split for fusion in FUSIONS]
    window = settings.search.section_routing.pipeline_window
    verdicts: list[FormVerdict] = []
    questions: dict[str, int] = {}
    per_step = len(FORMS) + len(LIBRARIES) + len(SOURCES_KEPT)
    with progress_bar(total=len(steps) * per_step, desc="relevance", unit="form") as bar:
        for split, fusion in steps:
            pipeline = f"clinical-{fusion}"
            rankers: dict[str, Ranker] = {
                name: form_ranker(client, args.index, pipeline, form) for name, form in FORMS.items()
            }
            rankers.update({name: make(url, args.index, pipeline) for name, make in LIBRARIES.items()})
            references = {
                _kept(name): plain_kept_ranker(client, args.index, pipeline, window, sources)
                for name, sources in SOURCES_KEPT.items()
            }
            scores: dict[str, float] = {}
            for name, rank in {**rankers, **references}.items():
                questions[split], scores[name] = mean_ndcg(split, rank)
                bar.update()
            verdicts.extend(
                FormVerdict(
                    split, fusion, name, scores[name], scores[_kept(name) if name in SOURCES_KEPT else PLAIN]
                )
                for name in rankers
                if name != PLAIN
            )

    texts = [q.text for q in load_test_set(args.timed_split).queries()][: args.timed_questions + 1]
    with breakdown_pipelines(client) as pipelines:
        timed = interleaved(
            timed_calls(client, args.index, pipelines, settings.search.candidate_depth), texts
        )
    findings = Findings(
        forms=tuple(verdicts),
        questions=questions,
        latency={label: latency(samples) for label, samples in timed.items()},
        latency_questions=f"{len(texts) - 1} {args.timed_split} questions",
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        render_report(findings, finished_run(PROG, argv, load_before), args.index), encoding="utf-8"
    )
    print(f"wrote {args.out}")
    return 0
