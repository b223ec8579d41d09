"""Training curves of a run: loss (moving mean, overall and per source) and dev validation, as one PNG.

``python -m model_artifacts.reranker.curves --run .cache/reranker/run3 --out model_artifacts/reports/x.png``

Reads the run's ``log.jsonl`` (one record per step) and ``validation.jsonl`` (one per validation), so it
can be drawn while a run is still going.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

PROG = "python -m model_artifacts.reranker.curves"


@dataclass(frozen=True)
class Curves:
    steps: list[int]
    loss: list[float]
    loss_by_source: dict[str, tuple[list[int], list[float]]]
    validation: list[dict[str, Any]] = field(default_factory=list)


def moving_mean(values: Sequence[float], window: int) -> list[float]:
    """Mean of each value and the ``window - 1`` before it (fewer at the start)."""
    if window < 1:
        raise ValueError(f"window must be ≥ 1, got {window}")
    sums = np.cumsum(np.asarray(values, dtype=np.float64))
    out = []
    for i in range(len(values)):
        start = max(0, i - window + 1)
        total = sums[i] - (sums[start - 1] if start else 0.0)
        out.append(float(total / (i - start + 1)))
    return out


def read_curves(run: Path) -> Curves:
    records = _jsonl(run / "log.jsonl")
    if not records:
        raise ValueError(f"{run / 'log.jsonl'} holds no training steps: is {run} a training run?")
    by_source: dict[str, tuple[list[int], list[float]]] = {}
    for record in records:
        for source, value in record.get("by_source", {}).items():
            steps, values = by_source.setdefault(source, ([], []))
            steps.append(int(record["step"]))
            values.append(float(value))
    return Curves(
        steps=[int(r["step"]) for r in records],
        loss=[float(r["loss"]) for r in records],
        loss_by_source=by_source,
        validation=_jsonl(run / "validation.jsonl"),
    )


def plot(curves: Curves, out: Path, window: int = 50) -> Path:
    figure = Figure(figsize=(11, 4.2), layout="constrained")
    loss_axes, dev_axes = figure.subplots(1, 2)
    loss_axes.plot(curves.steps, moving_mean(curves.loss, window), label="all", color="black", lw=2)
    for source, (steps, values) in sorted(curves.loss_by_source.items()):
        loss_axes.plot(steps, moving_mean(values, window), label=source, lw=1)
    loss_axes.set(title=f"listwise loss (mean of {window} steps)", xlabel="step", ylabel="loss")
    loss_axes.legend()
    if curves.validation:
        steps = [v["step"] for v in curves.validation]
        dev_axes.plot(steps, [v["auc"] for v in curves.validation], "o-", label="AUC")
        reranked = [v["ndcg10_reranked"] for v in curves.validation]
        dev_axes.plot(steps, reranked, "s-", label="nDCG@10 reranked")
        first = curves.validation[0]["ndcg10_first_stage"]
        dev_axes.axhline(first, color="grey", ls="--", label=f"nDCG@10 first stage ({first:.3f})")
        last = curves.validation[-1]
        dev_axes.set(
            title=f"dev sample ({last['queries']} queries × {last['depth']} candidates)", xlabel="step"
        )
        dev_axes.legend()
    else:
        dev_axes.set(title="no validation yet")
    out.parent.mkdir(parents=True, exist_ok=True)
    FigureCanvasAgg(figure)
    figure.savefig(out, dpi=110)
    return out


def _jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", required=True, type=Path, help="training run folder")
    parser.add_argument("--out", required=True, type=Path, help="PNG to write")
    parser.add_argument("--window", type=int, default=50, help="steps in the loss's moving mean")
    args = parser.parse_args(argv)
    try:
        print(plot(read_curves(args.run), args.out, args.window))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
