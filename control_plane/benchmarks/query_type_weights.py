"""Per-query-type fusion weights, earned on dev splits or left off: for each query type
(control_plane/search/query_types.py) the best min-max weights among the grid, against the global
weights (settings fusion.weights) on the same queries.

    export BIOHYBRID_CONFIG=control_plane/config/local.yaml
    python -m control_plane.benchmarks.query_type_weights --split nfcorpus/dev=chunks-nfcorpus \\
        --split clinical/dev=chunks-clinical --out model_artifacts/reports/query-type-weights/dev.md

Collection and fusion are control_plane/benchmarks/fusion_grid.py's (three component searches per query,
fusion in-process by the checked formulas). Collections judged at chunk level (clinical) are ranked by
chunk, the others by document. A type's weights are worth switching on only if they beat the global
weights on every split that has queries of that type (mean gain, paired test reported).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from control_plane.benchmarks.arguments import non_test_split
from control_plane.benchmarks.fusion_grid import Setting, Split, collect, per_query_ndcg, weight_grid
from control_plane.cluster.client import make_client
from control_plane.config.settings import load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.measures.significance import paired_randomization_test
from control_plane.query.components import COMPONENT_ORDER
from control_plane.search.boosting import intent_config, intent_config_path
from control_plane.search.intents import detect_intents
from control_plane.search.query_types import QueryType, classify_query
from control_plane.testsets.catalog import load_test_set

CHUNK_LEVEL = ("clinical/",)


@dataclass(frozen=True)
class TypeChoice:
    query_type: str
    best: Setting
    gains: dict[str, float]  # split -> mean nDCG@10 gain over the global weights on this type's queries
    p_values: dict[str, float]
    counts: dict[str, int]

    @property
    def holds_everywhere(self) -> bool:
        return bool(self.gains) and all(gain > 0 for gain in self.gains.values())


def at_chunk_level(split: Split) -> Split:
    """The split with every chunk its own 'document', for collections judged by chunk."""
    return replace(split, doc_of={chunk: chunk for chunk in split.doc_of})


def query_types(test_set: str) -> dict[str, str]:
    settings = load_settings()
    config = intent_config(str(intent_config_path(settings)))
    return {
        q.query_id: str(classify_query(q.text, detect_intents(q.text, config)))
        for q in load_test_set(test_set).queries()
    }


def choose(
    splits: Sequence[Split], types: Mapping[str, Mapping[str, str]], current: Setting, depth: int
) -> list[TypeChoice]:
    scores = {
        setting: {split.test_set: per_query_ndcg(split, setting, depth)[0] for split in splits}
        for setting in [current, *(Setting("weighted", w) for w in weight_grid())]
    }
    choices = []
    for query_type in QueryType:
        members = {
            split.test_set: [q for q, t in types[split.test_set].items() if t == query_type]
            for split in splits
        }
        members = {s: ids for s, ids in members.items() if ids}
        if not members:
            continue

        def mean_gain(setting: Setting, members: Mapping[str, list[str]] = members) -> float:
            gains = [
                sum(scores[setting][s][q] - scores[current][s][q] for q in ids) / len(ids)
                for s, ids in members.items()
            ]
            return sum(gains) / len(gains)

        best = max(scores, key=lambda setting: (round(mean_gain(setting), 6), setting == current))
        gains, p_values = {}, {}
        for s, ids in members.items():
            gains[s] = sum(scores[best][s][q] - scores[current][s][q] for q in ids) / len(ids)
            p_values[s] = paired_randomization_test(
                [scores[current][s][q] for q in ids], [scores[best][s][q] for q in ids]
            ).p_value
        counts = {s: len(ids) for s, ids in members.items()}
        choices.append(TypeChoice(str(query_type), best, gains, p_values, counts))
    return choices


def render(choices: Sequence[TypeChoice], current: Setting, header: list[str]) -> str:
    lines = [
        *header,
        "",
        f"Global weights (settings fusion.weights): {current.label}.",
        "",
        "| query type | queries per split | best weights (bm25/splade/dense) | gain per split | p per split "
        "| holds on every split |",
        "|---|---|---|---|---|---|",
    ]
    for choice in choices:
        lines.append(
            f"| {choice.query_type} | "
            + ", ".join(f"{s}: {n}" for s, n in choice.counts.items())
            + f" | {choice.best.label} | "
            + ", ".join(f"{s}: {g:+.4f}" for s, g in choice.gains.items())
            + " | "
            + ", ".join(f"{s}: {p:.3f}" for s, p in choice.p_values.items())
            + f" | {'yes' if choice.holds_everywhere else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--split", type=non_test_split, action="append", required=True, help="TEST_SET=INDEX on a dev split"
    )
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    settings = load_settings()
    client = make_client(settings.opensearch)
    splits: list[Split] = []
    types: dict[str, dict[str, str]] = defaultdict(dict)
    for test_set, index in args.split:
        split = collect(client, settings, test_set, index, args.depth)
        splits.append(at_chunk_level(split) if test_set.startswith(CHUNK_LEVEL) else split)
        types[test_set] = query_types(test_set)
    weights = settings.fusion.weights.model_dump()
    current = Setting("weighted", tuple(float(weights[c]) for c in COMPONENT_ORDER))  # type: ignore[arg-type]
    choices = choose(splits, types, current, args.depth)
    header = [
        "# Per-query-type fusion weights (dev splits)",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {describe_machine()}.",
        "",
        "```",
        "BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        "python -m control_plane.benchmarks.query_type_weights "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "```",
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(choices, current, header), encoding="utf-8")
    print(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
