"""The stratified query set: the written rule, its counts, and its stability."""

from __future__ import annotations

import hashlib

import pytest

from control_plane.clinical.query_types import classify_query
from control_plane.evaluation.query_sets import load_evaluation_set
from control_plane.evaluation.settings import StratifiedSetSettings
from control_plane.testsets.catalog import Query, load_test_set
from control_plane.testsets.stratify import sample_key, stratify

QUERIES = [Query(f"q{i}", f"text {i}") for i in range(1, 8)]
TYPES = {"q1": "a", "q2": "b", "q3": "a", "q4": "a", "q5": "b", "q6": "c", "q7": "a"}


def _by_hash(seed: str, ids: list[str]) -> list[str]:
    return sorted(ids, key=lambda q: hashlib.sha256(f"{seed}:{q}".encode()).hexdigest())


def test_at_most_per_type_of_each_type_in_seeded_hash_order() -> None:
    chosen = stratify(QUERIES, TYPES, per_type=2, seed="s1", rule="r")
    assert chosen.population == {"a": 4, "b": 2, "c": 1}
    assert chosen.selected == {"a": 2, "b": 2, "c": 1}
    expected = _by_hash("s1", ["q1", "q3", "q4", "q7"])[:2] + _by_hash("s1", ["q2", "q5"]) + ["q6"]
    assert list(chosen.query_ids) == expected
    assert sample_key("s1", "q1") == hashlib.sha256(b"s1:q1").hexdigest()


def test_choice_ignores_input_order_and_unrelated_queries() -> None:
    forward = stratify(QUERIES, TYPES, per_type=2, seed="s1")
    backward = stratify(list(reversed(QUERIES)), TYPES, per_type=2, seed="s1")
    assert forward.query_ids == backward.query_ids
    # A new query of another type changes nothing for type "a".
    more = stratify([*QUERIES, Query("q8", "t")], {**TYPES, "q8": "c"}, per_type=2, seed="s1")
    assert [q for q in more.query_ids if TYPES.get(q) == "a"] == [
        q for q in forward.query_ids if TYPES[q] == "a"
    ]
    with pytest.raises(ValueError, match="per_type"):
        stratify(QUERIES, TYPES, per_type=0, seed="s1")


def test_nfcorpus_stratified_set_from_dev_and_train() -> None:
    spec = StratifiedSetSettings(sources=["nfcorpus/dev", "nfcorpus/train"], per_type=20, seed="t")
    chosen = load_evaluation_set("nfcorpus/stratified", {"nfcorpus/stratified": spec})
    assert chosen.stratification is not None
    judged = sum(
        1
        for source in ("nfcorpus/dev", "nfcorpus/train")
        for grades in load_test_set(source).qrels().values()
        if any(grade > 0 for grade in grades.values())
    )
    assert sum(chosen.stratification.population.values()) == judged
    assert chosen.stratification.selected == {
        name: min(20, count) for name, count in chosen.stratification.population.items()
    }
    assert len(chosen.queries) == sum(chosen.stratification.selected.values())
    assert all(chosen.query_types[q.query_id] == classify_query(q.text) for q in chosen.queries)
    assert chosen.qrels.keys() == {q.query_id for q in chosen.queries}
    assert chosen.dataset == "nfcorpus"
    assert "nfcorpus/dev, nfcorpus/train" in chosen.stratification.rule


def test_plain_test_set_keeps_judged_queries_in_file_order() -> None:
    first = load_evaluation_set("nfcorpus/dev", limit=5, classify=lambda text: "t")
    dev = load_test_set("nfcorpus/dev")
    assert [q.query_id for q in first.queries] == [q.query_id for q in dev.queries()][:5]
    assert set(first.query_types.values()) == {"t"} and first.dataset == "nfcorpus"
    with pytest.raises(ValueError, match="limit"):
        load_evaluation_set("nfcorpus/dev", limit=0)
