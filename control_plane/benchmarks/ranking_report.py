"""One ranking-quality table per test set from finished evaluation runs (issue 14's report): every
configuration's nDCG@10, Recall@10/100 and latency, with a paired test against hybrid-minmax.

    python -m control_plane.benchmarks.ranking_report \\
        --run nfcorpus/test=bge-small:.local/evaluation/item6/<run id> \\
        --run nfcorpus/test=MiniLM:.local/evaluation/item6-minilm/<run id> \\
        --out model_artifacts/reports/ranking-quality/README.md

Each ``--run`` names a folder written by ``biohybrid evaluate`` (its runs/*.trec, results.json and
report.md with the command that made it) and a label for the dense model it ran with. Metrics are
recomputed from the TREC runs against the test set's qrels, so runs made separately (another dense
model needs its own index) are compared on the same queries (their intersection) with the same code:
the baseline is the hybrid-minmax run of the first label given for the test set.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from control_plane.measures.metrics import Qrels, Run, per_query
from control_plane.measures.significance import paired_randomization_test
from control_plane.reports.markdown import markdown_table
from control_plane.testsets.catalog import load_test_set, read_trec_run

METRICS = ("ndcg@10", "recall@10", "recall@100")
BASELINE = "hybrid-minmax"


@dataclass(frozen=True)
class EvaluatedRun:
    """One configuration of one evaluation run: its documents per query and what the run measured."""

    label: str
    configuration: str
    run: Run
    latency_ms: Mapping[str, float]
    degraded: Mapping[str, int]
    source: Path

    @property
    def name(self) -> str:
        return f"{self.configuration} ({self.label})"


def load_runs(label: str, folder: Path) -> list[EvaluatedRun]:
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    measured = {c["configuration"]: c for c in results["configurations"]}
    return [
        EvaluatedRun(
            label,
            path.stem,
            read_trec_run(path),
            measured.get(path.stem, {}).get("latency_ms", {}),
            measured.get(path.stem, {}).get("degraded_queries", {}),
            folder,
        )
        for path in sorted((folder / "runs").glob("*.trec"))
    ]


def table(runs: Sequence[EvaluatedRun], qrels: Qrels) -> tuple[list[str], int]:
    """The markdown table and the number of queries every run answered."""
    # The queries each evaluation searched: those of its runs (a query a configuration found nothing for
    # is absent from that run and scores 0, as in the evaluation); compared on the ones all searched.
    searched = [
        set().union(*(set(r.run) for r in runs if r.source == folder)) for folder in {r.source for r in runs}
    ]
    judged = {q: qrels[q] for q in set.intersection(*searched) if q in qrels}
    scores = {r.name: per_query(judged, r.run, list(METRICS)) for r in runs}
    baseline = next(r for r in runs if r.configuration == BASELINE)
    queries = sorted(scores[baseline.name])  # those with a relevant document
    rows = []
    for r in runs:
        mine = scores[r.name]
        means = [sum(mine[q][m] for q in queries) / len(queries) for m in METRICS]
        base = [scores[baseline.name][q]["ndcg@10"] for q in queries]
        ours = [mine[q]["ndcg@10"] for q in queries]
        delta = sum(ours) / len(ours) - sum(base) / len(base)
        p = "" if r is baseline else f"{paired_randomization_test(base, ours).p_value:.3f}"
        latency = r.latency_ms
        rows.append(
            [
                r.name,
                *(f"{v:.4f}" for v in means),
                "" if r is baseline else f"{delta:+.4f}",
                p,
                f"{latency.get('p50', float('nan')):.0f} / {latency.get('p95', float('nan')):.0f}",
                str(sum(r.degraded.values())),
            ]
        )
    header = [
        "configuration (dense model)",
        *METRICS,
        "Δ nDCG@10 vs hybrid-minmax",
        "p",
        "latency p50 / p95 ms",
    ]
    return markdown_table([*header, "degraded queries"], rows), len(queries)


def _run_argument(text: str) -> tuple[str, str, Path]:
    test_set, _, rest = text.partition("=")
    label, _, folder = rest.partition(":")
    if not (test_set and label and folder):
        raise argparse.ArgumentTypeError(f"expected TEST_SET=LABEL:FOLDER, got {text!r}")
    return test_set, label, Path(folder)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--run", type=_run_argument, action="append", required=True, help="TEST_SET=LABEL:FOLDER"
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--preamble", type=Path, help="markdown put above the tables (what was run and why)")
    args = parser.parse_args(argv)
    by_test_set: dict[str, list[EvaluatedRun]] = {}
    for test_set, label, folder in args.run:
        by_test_set.setdefault(test_set, []).extend(load_runs(label, folder))
    command = shlex.join(sys.argv[1:] if argv is None else list(argv))
    lines = [
        "# Ranking quality: every configuration against hybrid-minmax",
        "",
        f"Command: `python -m control_plane.benchmarks.ranking_report {command}`",
        "",
    ]
    if args.preamble:
        lines += [args.preamble.read_text(encoding="utf-8").rstrip(), ""]
    for test_set, runs in by_test_set.items():
        rendered, count = table(runs, load_test_set(test_set).qrels())
        sources = sorted({f"`{r.source}`" for r in runs})
        lines += [
            f"## {test_set} ({count} queries)",
            "",
            *rendered,
            "",
            "Δ and p: paired randomization test on per-query nDCG@10 against hybrid-minmax (bge-small), same "
            "queries; latency as the evaluation measured it (SearchService, one query at a time).",
            f"Evaluation runs: {', '.join(sources)} (each report.md there names its command).",
            "",
        ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
