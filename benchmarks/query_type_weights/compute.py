"""Per-query-type weight choices: the fusion grid's lists and scores, each query's type, and per type the
grid point with the best mean gain over the global weights."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from opensearchpy import OpenSearch

from benchmarks.fusion_grid.compute import Setting, Split, collect, per_query_ndcg, weight_grid
from control_plane.clinical.intents import detect_intents
from control_plane.clinical.planning import intent_config, intent_config_path
from control_plane.clinical.query_types import QueryType, classify_query
from control_plane.config.settings import Settings, load_settings
from control_plane.measures.significance import paired_randomization_test
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


def collect_typed(
    client: OpenSearch, settings: Settings, split_indices: Sequence[tuple[str, str]], depth: int
) -> tuple[list[Split], dict[str, dict[str, str]]]:
    """Each split's component lists (chunk-level collections ranked by chunk) and its queries' types."""
    splits: list[Split] = []
    types: dict[str, dict[str, str]] = defaultdict(dict)
    for test_set, index in split_indices:
        split = collect(client, settings, test_set, index, depth)
        splits.append(at_chunk_level(split) if test_set.startswith(CHUNK_LEVEL) else split)
        types[test_set] = query_types(test_set)
    return splits, types


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
