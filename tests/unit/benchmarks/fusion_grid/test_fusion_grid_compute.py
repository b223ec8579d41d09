"""The fusion grid's pure parts: the weight simplex, scoring one split by hand, refusing test splits."""

import math

import pytest

from benchmarks.fusion_grid.compute import (
    Setting,
    Split,
    current_settings,
    per_query_ndcg,
    weight_grid,
)
from control_plane.config.fusion_settings import FusionWeights
from control_plane.config.settings import load_settings

# One query whose only relevant document is d1; c1..c3 are chunks of d1..d3.
SPLIT = Split(
    test_set="toy/dev",
    index="chunks-toy",
    qrels={"q": {"d1": 1}},
    lists={
        "q": {
            "bm25": {"c1": 10.0, "c2": 5.0},
            "splade": {"c2": 3.0, "c1": 1.0},
            "dense": {"c2": 0.9, "c3": 0.5},
        }
    },
    doc_of={"c1": "d1", "c2": "d2", "c3": "d3"},
)


def test_weight_grid_covers_the_simplex_in_tenths() -> None:
    grid = weight_grid()
    assert len(grid) == 66  # C(12, 2) triples of tenths summing to 1
    assert all(math.isclose(sum(w), 1.0) for w in grid)
    assert (1.0, 0.0, 0.0) in grid and (0.3, 0.3, 0.4) in grid


def test_bm25_alone_puts_the_relevant_document_first() -> None:
    ndcg, recall = per_query_ndcg(SPLIT, Setting("weighted", (1.0, 0.0, 0.0)), depth=100)
    assert ndcg == {"q": 1.0} and recall == 1.0


def test_dense_alone_ranks_it_third() -> None:
    # dense min-max: c2 1.0, c3 0.001 (the floor); c1 only in the zero-weight lists: 0
    ndcg, _ = per_query_ndcg(SPLIT, Setting("weighted", (0.0, 0.0, 1.0)), depth=100)
    assert ndcg["q"] == pytest.approx(1 / math.log2(4))


def test_rrf_ranks_it_second() -> None:
    # c2: 1/62 + 1/61 + 1/61, c1: 1/61 + 1/62, c3: 1/62
    ndcg, _ = per_query_ndcg(SPLIT, Setting("rrf", k=60), depth=100)
    assert ndcg["q"] == pytest.approx(1 / math.log2(3))


def test_weighted_rrf_with_bm25_heavy_weights_puts_it_first() -> None:
    # Weights 0.8/0.1/0.1: c1 0.8/61 + 0.1/62 = 0.014729; c2 0.8/62 + 0.1/61 + 0.1/61 = 0.016182.
    # c2 still leads (found by all three), so d1 is second: 1/log2(3).
    ndcg, _ = per_query_ndcg(SPLIT, Setting("rrf", (0.8, 0.1, 0.1), k=60), depth=100)
    assert ndcg["q"] == pytest.approx(1 / math.log2(3))
    # Weights 1/0/0: only BM25's ranks count, c1 (rank 1) first.
    ndcg, _ = per_query_ndcg(SPLIT, Setting("rrf", (1.0, 0.0, 0.0), k=60), depth=100)
    assert ndcg["q"] == 1.0


def test_labels_say_which_rrf() -> None:
    assert Setting("rrf", k=60).label == "rrf k=60"
    assert Setting("rrf", (0.5, 0.2, 0.3), k=60).label == "rrf k=60 0.50/0.20/0.30"
    assert Setting("weighted", (0.2, 0.2, 0.6)).label == "min-max 0.20/0.20/0.60"


def test_the_current_rrf_setting_carries_the_configured_weights() -> None:
    settings = load_settings(environ={})
    _, classic = current_settings(settings)
    assert classic == Setting("rrf", None, k=60)
    weights = FusionWeights(bm25=0.2, splade=0.1, dense=0.7)
    rrf = settings.fusion.rrf.model_copy(update={"weights": weights})
    weighted = settings.model_copy(update={"fusion": settings.fusion.model_copy(update={"rrf": rrf})})
    assert current_settings(weighted)[1] == Setting("rrf", (0.2, 0.1, 0.7), k=60)
