"""The ranking-quality figures: finished evaluation runs read back, their metrics recomputed from the
TREC runs on the queries every evaluation searched, each configuration against hybrid-minmax."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from control_plane.measures.metrics import Qrels, Run, per_query
from control_plane.measures.significance import paired_randomization_test
from control_plane.testsets.catalog import read_trec_run

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


@dataclass(frozen=True)
class ConfigurationScores:
    """One run's mean metrics (in METRICS order) and, except for the baseline, its nDCG@10 difference
    from the baseline and the paired test's p."""

    run: EvaluatedRun
    means: tuple[float, ...]
    delta: float | None
    p_value: float | None


@dataclass(frozen=True)
class Comparison:
    configurations: tuple[ConfigurationScores, ...]
    queries: int


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


SAME = "same"
"""``against``: each configuration against the same configuration of the first label (a model's effect
on every configuration that uses it)."""


def compare(runs: Sequence[EvaluatedRun], qrels: Qrels, against: str = BASELINE) -> Comparison:
    """Every run against the first label's ``against`` configuration (``SAME``: its own configuration
    under the first label), on the judged queries every evaluation searched."""
    # The queries each evaluation searched: those of its runs (a query a configuration found nothing for
    # is absent from that run and scores 0, as in the evaluation); compared on the ones all searched.
    searched = [
        set().union(*(set(r.run) for r in runs if r.source == folder)) for folder in {r.source for r in runs}
    ]
    judged = {q: qrels[q] for q in set.intersection(*searched) if q in qrels}
    scores = {r.name: per_query(judged, r.run, list(METRICS)) for r in runs}
    first = runs[0].label
    queries = sorted(scores[runs[0].name])  # those with a relevant document
    configurations = []
    for r in runs:
        wanted = r.configuration if against == SAME else against
        baseline = next((b for b in runs if b.label == first and b.configuration == wanted), None)
        if baseline is None:
            raise ValueError(f"no {wanted} run under {first!r}, the first label, to compare {r.name} with")
        mine = scores[r.name]
        means = tuple(sum(mine[q][m] for q in queries) / len(queries) for m in METRICS)
        base = [scores[baseline.name][q]["ndcg@10"] for q in queries]
        ours = [mine[q]["ndcg@10"] for q in queries]
        if r is baseline:
            configurations.append(ConfigurationScores(r, means, None, None))
            continue
        delta = sum(ours) / len(ours) - sum(base) / len(base)
        configurations.append(
            ConfigurationScores(r, means, delta, paired_randomization_test(base, ours).p_value)
        )
    return Comparison(tuple(configurations), len(queries))
