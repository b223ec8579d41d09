"""`intents check`: how well clinical intent detection finds what a hand-labelled query sample means
(micro precision and recall overall, per intent, per query form); exit 1 below the targets, so a phrase
list change that loses recall or precision fails where it is run. `intents cues`: build the corpus cues
file (clinical/corpus_cues.py) from corpus sources. No node needed for either."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from control_plane.cli.common import EXIT_CONFIG, EXIT_DRIFT, Subcommands, guide
from control_plane.clinical.corpus_cues import CueSelection, dump_corpus_cues
from control_plane.clinical.intent_quality import (
    DEFAULT_LABELS_FILE,
    Counts,
    IntentLabelError,
    QualityReport,
    labelled_questions,
    load_labels,
    measure_detection,
)
from control_plane.clinical.intents import IntentConfigError, load_intent_config
from control_plane.clinical.planning import intent_config_path
from control_plane.config.settings import Settings
from control_plane.ingestion.corpus_terms import DEFAULT_CUES_FILE, build_corpus_cues
from control_plane.ingestion.submission import IngestRefusedError, check_dataset_folders, check_sources
from control_plane.testsets.catalog import load_test_set

MIN_PRECISION = 0.9
MIN_RECALL = 0.8


def add_parsers(commands: Subcommands) -> None:
    intents = commands.add_parser(
        "intents",
        epilog=guide("api/search.md"),
        help="check clinical intent detection; build its corpus cues",
        description="`intents check` measures the intent detector on a labelled sample; `intents cues` "
        "builds the cue words the corpus knows (the harms its adverse-event tables name).",
    )
    actions = intents.add_subparsers(dest="intents_action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        epilog=guide("api/search.md"),
        help="precision and recall of intent detection on a labelled query sample",
        description="Runs the intent detector (search.intents_file) over a labelled sample (JSON lines: "
        "query, intents, form) or a registered test split whose questions carry intents "
        "(clinical-fresh/dev, clinical-natural/dev, clinical/dev) and prints micro precision and recall "
        "overall, per intent and per form. Exits 1 when precision or recall is below its minimum.",
    )
    sample = check.add_mutually_exclusive_group()
    sample.add_argument(
        "--labels", type=Path, default=DEFAULT_LABELS_FILE, help="labelled sample (default: packaged)"
    )
    sample.add_argument(
        "--split",
        metavar="TEST_SET",
        help="a test split whose questions' metadata hold their intents, e.g. clinical-fresh/dev",
    )
    check.add_argument("--intents-file", type=Path, help="intents YAML (default: search.intents_file)")
    check.add_argument("--min-precision", type=float, default=MIN_PRECISION, help="default %(default)s")
    check.add_argument("--min-recall", type=float, default=MIN_RECALL, help="default %(default)s")
    check.add_argument("--mistakes", action="store_true", help="list each query detected wrongly")
    check.set_defaults(handler=_check)
    cues = actions.add_parser(
        "cues",
        epilog=guide("api/search.md"),
        help="build the corpus cues file: harm words from the corpus's adverse-event tables",
        description="Reads the sources as `biohybrid ingest` does (no node), and writes the words of the "
        "adverse events that at least --min-records records list, that the adverse-event chunks hold at "
        "least e^--min-log-ratio times as often as the other chunks, and that name no record's topic "
        "(title, conditions, keywords) nor, in the MEDLINE citations' MeSH headings given with --mesh, "
        "mostly a subject rather than a caused condition. intents.yaml's corpus_cues names the file; "
        "restart the inference service and the API to read a new one.",
    )
    cues.add_argument(
        "sources", nargs="+", help="corpus files or folders (ClinicalTrials.gov, PMC, MEDLINE, as for ingest)"
    )
    cues.add_argument(
        "--mesh",
        action="append",
        default=[],
        metavar="SOURCE",
        help="MEDLINE citations whose MeSH headings tell a harm from a subject (a dataset id such as "
        "medline, a file or a folder; repeatable)",
    )
    cues.add_argument("--out", type=Path, default=DEFAULT_CUES_FILE, help="default: %(default)s")
    cues.add_argument("--min-records", type=int, default=CueSelection.min_records, help="default %(default)s")
    cues.add_argument(
        "--min-log-ratio", type=float, default=CueSelection.min_log_ratio, help="default %(default)s"
    )
    cues.set_defaults(handler=_cues)


def _cues(settings: Settings, args: argparse.Namespace) -> int:
    if args.min_records < 1:
        print("error: --min-records must be at least 1", file=sys.stderr)
        return EXIT_CONFIG
    try:  # ingest's own refusals: an unknown source, a dataset whose folder is nowhere
        check_sources([*args.sources, *args.mesh])
        check_dataset_folders([*args.sources, *args.mesh])
    except IngestRefusedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    selection = CueSelection(min_records=args.min_records, min_log_ratio=args.min_log_ratio)
    cues = build_corpus_cues(args.sources, args.mesh, selection)
    dump_corpus_cues(cues, args.out)
    counts = cues.counts or {}
    words = {name: len(found) for name, found in cues.intents.items()}
    print(
        f"{args.out}: {words} cue words from {counts.get('records_with_terms', 0)} records' adverse-event "
        f"tables, {counts.get('chunks', 0)} chunks of {counts.get('documents', 0)} documents, "
        f"{counts.get('headings', 0)} MeSH headings"
    )
    return 0


def _check(settings: Settings, args: argparse.Namespace) -> int:
    try:
        config = load_intent_config(args.intents_file or intent_config_path(settings))
        if args.split:
            questions = ((q.text, q.metadata) for q in load_test_set(args.split).queries())
            labelled = labelled_questions(questions, known_intents=config.intents)
        else:
            labelled = load_labels(args.labels, known_intents=config.intents)
    # ValueError: an unknown split id (IntentConfigError and IntentLabelError are ValueErrors too)
    except (IntentConfigError, IntentLabelError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    if not labelled:
        print(f"error: {args.split or args.labels} holds no labelled question", file=sys.stderr)
        return EXIT_CONFIG
    report = measure_detection(labelled, config)
    print(format_report(report))
    if args.mistakes:
        for outcome in report.mistakes:
            missed = ",".join(sorted(outcome.missed)) or "-"
            spurious = ",".join(sorted(outcome.spurious)) or "-"
            print(f"  missed {missed:<24} spurious {spurious:<24} {outcome.labelled.query}")
    overall = report.overall
    below = [
        f"{name} {value:.3f} < {minimum:g}"
        for name, value, minimum in (
            ("precision", overall.precision, args.min_precision),
            ("recall", overall.recall, args.min_recall),
        )
        if value is not None and value < minimum
    ]
    if below:
        print(f"below target: {'; '.join(below)}")
        return EXIT_DRIFT
    return 0


def format_report(report: QualityReport) -> str:
    """The report as an aligned table: one row overall, then per intent, then per form."""
    lines = [f"{len(report.outcomes)} labelled queries", _row("", "tp", "fp", "fn", "precision", "recall")]
    lines.append(_counts_row("overall", report.overall))
    lines.extend(_counts_row(f"intent {name}", counts) for name, counts in report.per_intent.items())
    lines.extend(_counts_row(f"form {name}", counts) for name, counts in report.per_form.items())
    return "\n".join(lines)


def _counts_row(label: str, counts: Counts) -> str:
    def ratio(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    return _row(label, counts.tp, counts.fp, counts.fn, ratio(counts.precision), ratio(counts.recall))


def _row(label: str, *cells: object) -> str:
    return f"{label:<22}" + "".join(f"{cell!s:>10}" for cell in cells)
