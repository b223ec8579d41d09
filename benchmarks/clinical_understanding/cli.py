"""Command line of the clinical-understanding benchmark."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from benchmarks import clinical_understanding
from benchmarks.clinical_pipelines.measure import FUSIONS, judged_questions
from benchmarks.clinical_understanding.compute import (
    ALL,
    NAMED_FORM,
    Verdict,
    detection_counts,
    detection_verdict,
    gain_verdict,
    group_mean,
    intent_groups_below,
    labelled_intents,
    named_record_verdict,
    no_group_below_verdict,
    overall_minimum,
    overall_verdict,
    question_groups,
    share,
)
from benchmarks.clinical_understanding.measure import (
    PAIRS,
    SplitRun,
    rankers,
    run_split,
)
from benchmarks.clinical_understanding.report import Findings, render_report
from benchmarks.run_stamp import finished_run
from control_plane.clinical.intents import detect_intents
from control_plane.clinical.planning import intent_config, intent_config_path
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.progress import progress_bar
from control_plane.search.service import SearchService

PROG = "python -m benchmarks.clinical_understanding"
VERDICT_SPLIT = "clinical-natural/test"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=clinical_understanding.__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--split", action="append", required=True, help="a clinical split (repeat)")
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--verdict-split", default=VERDICT_SPLIT, help="the split the targets are judged on")
    parser.add_argument("--out", type=Path, required=True)
    return parser


def verdicts(runs: Sequence[SplitRun], split: str) -> list[Verdict]:
    """Per fusion and path on ``split``: the gain over boosts off, no intent group below, overall."""
    found: list[Verdict] = []
    for run in (r for r in runs if r.split == split):
        groups = question_groups(run.queries)
        for path, (off_label, on_label) in PAIRS.items():
            off, on = run.ndcg[off_label], run.ndcg[on_label]
            found.append(
                gain_verdict(path, run.fusion, group_mean(off, groups[ALL]), group_mean(on, groups[ALL]))
            )
            found.append(no_group_below_verdict(path, run.fusion, intent_groups_below(off, on, groups)))
            minimum = overall_minimum(split)
            found.append(overall_verdict(path, run.fusion, group_mean(on, groups[ALL]), minimum))
            named = groups.get(NAMED_FORM, [])
            if named and run.top3:
                answered = share(run.top3[on_label], named)
                found.append(named_record_verdict(path, run.fusion, answered, len(named)))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verdict_split not in args.split:
        parser.error(f"--verdict-split {args.verdict_split} is not among the --split values")
    load_before = os.getloadavg()[0]
    settings = load_settings()
    client = make_client(settings.opensearch)
    service = SearchService(client, settings)
    config = intent_config(str(intent_config_path(settings)))
    runs: list[SplitRun] = []
    steps = [(split, fusion) for split in args.split for fusion in FUSIONS]
    with progress_bar(total=len(steps), desc="nDCG", unit="split x fusion") as bar:
        for split, fusion in steps:
            questions, _ = judged_questions(split)
            labels = {q.text: labelled_intents(q) for q in questions}
            depth = settings.search.candidate_depth
            paths = rankers(client, service, args.index, fusion, depth, labels)
            runs.append(run_split(split, fusion, paths))
            bar.update()
    detection = {}
    for split in args.split:
        queries, _ = judged_questions(split)
        found = [[i.name for i in detect_intents(q.text, config)] for q in queries]
        detection[split] = detection_counts([labelled_intents(q) for q in queries], found, config.intents)
    judged = verdicts(runs, args.verdict_split)
    judged.append(detection_verdict(detection[args.verdict_split][ALL]))
    findings = Findings(tuple(runs), detection, tuple(judged), args.verdict_split)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        render_report(findings, finished_run(PROG, argv, load_before), args.index), encoding="utf-8"
    )
    print(f"wrote {args.out}")
    for verdict in judged:
        print(f"{'met' if verdict.met else 'MISSED'}: {verdict.target}: {verdict.measured}")
    return 0
