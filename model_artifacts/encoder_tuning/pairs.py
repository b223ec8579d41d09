"""Training triples (query, positive, hard negative) from the reranker's cached training data.

The same material and the same guard as the cross-encoder (``model_artifacts.reranker.data``): NFCorpus
train queries, SciFact train claims less the held-out ones, MEDLINE title → abstract pairs, negatives
mined by the first stage. Which query fills each slot of each step comes from the reranker's
``schedule`` (every query seen before any repeats), and each slot's draws from its own generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from model_artifacts.reranker.data import TrainingData
from model_artifacts.reranker.pairs import TrainQuery, gain, group_rng


@dataclass(frozen=True)
class Triple:
    source: str
    query: str
    positive_id: str
    positive: str
    negative_id: str
    negative: str


def draw_triple(query: TrainQuery, passages: dict[str, str], rng: np.random.Generator) -> Triple:
    """A positive drawn with probability ∝ its gain and one mined negative drawn uniformly."""
    ids = sorted(query.positives)
    if not ids or not query.negatives:
        raise ValueError(f"query {query.source}/{query.query_id} needs a positive and a negative")
    gains = np.array([gain(query.positives[i]) for i in ids], dtype=np.float64)
    positive = ids[int(rng.choice(len(ids), p=gains / gains.sum()))]
    negative = query.negatives[int(rng.integers(len(query.negatives)))]
    return Triple(query.source, query.text, positive, passages[positive], negative, passages[negative])


def step_triples(
    data: TrainingData, names: Sequence[str], slots: npt.NDArray[np.int64], seed: int, step: int
) -> list[Triple]:
    """The triples of one step: ``slots`` is that step's [batch, 2] array of (source, query index)."""
    triples = []
    for slot, (source, index) in enumerate(slots):
        source_data = data.sources[names[int(source)]]
        query = source_data.queries[int(index)]
        triples.append(draw_triple(query, source_data.passages, group_rng(seed, step, slot)))
    return triples


def false_negative_mask(triples: Sequence[Triple]) -> npt.NDArray[np.bool_]:
    """[batch, 2·batch]: True where query i would be pushed away from a passage that is its own positive
    under another slot (two queries sharing a relevant passage); those logits are masked out."""
    passage_ids = [t.positive_id for t in triples] + [t.negative_id for t in triples]
    mask = np.zeros((len(triples), len(passage_ids)), dtype=bool)
    for i, triple in enumerate(triples):
        for j, passage in enumerate(passage_ids):
            mask[i, j] = j != i and passage == triple.positive_id
    return mask
