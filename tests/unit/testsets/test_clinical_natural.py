"""The natural clinical question collection (testsets/clinical-natural): its ids resolve, its judgments
name chunks of the shared corpus, its splits share no question or topic group, and each question has an
answer. Pure: reads the committed files only."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

import pytest

from control_plane.datasets.locate import project_testsets_root
from control_plane.evaluation.natural_set.build import (
    FORMS,
    INTENTS,
    SPLITS,
    group_split,
    query_split,
    read_jsonl,
)
from control_plane.evaluation.natural_set.judge import judge
from control_plane.testsets.catalog import load_test_set

FOLDER = project_testsets_root() / "clinical-natural"


@cache
def _queries() -> list[dict[str, Any]]:
    return read_jsonl(FOLDER / "queries.jsonl")


@cache
def _judgments() -> list[dict[str, Any]]:
    return read_jsonl(FOLDER / "judgments.jsonl")


@cache
def _corpus_ids() -> frozenset[str]:
    return frozenset(document.doc_id for document in load_test_set("clinical-natural/dev").corpus())


@pytest.mark.parametrize("split", SPLITS)
def test_ids_resolve_and_share_the_clinical_corpus(split: str) -> None:
    test_set = load_test_set(f"clinical-natural/{split}")
    assert test_set.corpus_folder == project_testsets_root() / "clinical"
    assert {query.query_id for query in test_set.queries()} == set(test_set.qrels())


def test_every_judged_chunk_is_in_the_corpus() -> None:
    judged = {row["chunk_id"] for row in _judgments()}
    assert judged <= _corpus_ids(), sorted(judged - _corpus_ids())[:5]


def test_at_least_150_questions_with_known_metadata() -> None:
    queries = _queries()
    assert len(queries) >= 150
    assert len({query["_id"] for query in queries}) == len(queries)
    for query in queries:
        metadata = query["metadata"]
        assert set(metadata) == {"intents", "form", "paraphrase", "topic", "group"}, query["_id"]
        assert set(metadata["intents"]) <= set(INTENTS), query["_id"]
        assert metadata["form"] in FORMS and isinstance(metadata["paraphrase"], bool), query["_id"]
        assert (metadata["topic"] is None) == (metadata["form"] == "no_topic"), query["_id"]
        assert (metadata["form"] == "two_intent") == (len(metadata["intents"]) == 2), query["_id"]
        assert isinstance(metadata["group"], str) and metadata["group"], query["_id"]


def test_splits_share_no_question_and_no_topic_group() -> None:
    dev, test = (load_test_set(f"clinical-natural/{split}").qrels() for split in SPLITS)
    assert not set(dev) & set(test)
    assert set(dev) | set(test) == {query["_id"] for query in _queries()}
    groups: dict[str, set[str]] = defaultdict(set)
    splits = query_split(_queries())
    for query in _queries():
        groups[query["metadata"]["group"]].add(splits[query["_id"]])
        assert splits[query["_id"]] == ("dev" if query["_id"] in dev else "test")
    assert all(len(found) == 1 for found in groups.values())
    assert {group_split(group) for group in groups} == set(SPLITS)


def test_every_question_has_a_grade_2_chunk_and_qrels_hold_grades_1_and_2() -> None:
    best: dict[str, int] = {}
    for row in _judgments():
        best[row["query_id"]] = max(best.get(row["query_id"], 0), row["grade"])
    assert all(best.get(query["_id"]) == 2 for query in _queries())
    for split in SPLITS:
        grades = {
            g
            for judged in load_test_set(f"clinical-natural/{split}").qrels().values()
            for g in judged.values()
        }
        assert grades == {1, 2}


def test_judgments_are_what_the_reading_gives(tmp_path: Any) -> None:
    for name in ("queries.jsonl", "reading.tsv", "topics.json", "pool.jsonl", "added.jsonl"):
        (tmp_path / name).write_bytes((FOLDER / name).read_bytes())
    assert judge(tmp_path) == _judgments()
