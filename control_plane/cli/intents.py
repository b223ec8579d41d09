"""`intents check`: how well clinical intent detection finds what a hand-labelled query sample means
(micro precision and recall overall, per intent, per query form); exit 1 below the targets, so a phrase
list change that loses recall or precision fails where it is run. No node needed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from control_plane.cli.common import EXIT_CONFIG, EXIT_DRIFT, Subcommands, guide
from control_plane.clinical.intent_quality import (
    DEFAULT_LABELS_FILE,
    Counts,
    IntentLabelError,
    QualityReport,
    load_labels,
    measure_detection,
)
from control_plane.clinical.intents import IntentConfigError, load_intent_config
from control_plane.clinical.planning import intent_config_path
from control_plane.config.settings import Settings

MIN_PRECISION = 0.9
MIN_RECALL = 0.8


def add_parsers(commands: Subcommands) -> None:
    intents = commands.add_parser(
        "intents",
        epilog=guide("api/search.md"),
        help="check clinical intent detection against a labelled query sample",
        description="`intents check` runs the intent detector (search.intents_file) over a labelled "
        "sample (JSON lines: query, intents, form) and prints micro precision and recall overall, per "
        "intent and per form. Exits 1 when precision or recall is below its minimum.",
    )
    intents.add_argument("action", choices=["check"], help="what to do")
    intents.add_argument(
        "--labels", type=Path, default=DEFAULT_LABELS_FILE, help="labelled sample (default: packaged)"
    )
    intents.add_argument("--intents-file", type=Path, help="intents YAML (default: search.intents_file)")
    intents.add_argument("--min-precision", type=float, default=MIN_PRECISION, help="default %(default)s")
    intents.add_argument("--min-recall", type=float, default=MIN_RECALL, help="default %(default)s")
    intents.add_argument("--mistakes", action="store_true", help="list each query detected wrongly")
    intents.set_defaults(handler=_check)


def _check(settings: Settings, args: argparse.Namespace) -> int:
    try:
        config = load_intent_config(args.intents_file or intent_config_path(settings))
        labelled = load_labels(args.labels, known_intents=config.intents)
    except (IntentConfigError, IntentLabelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
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
