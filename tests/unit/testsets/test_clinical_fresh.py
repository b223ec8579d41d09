"""The fresh clinical question collection (testsets/clinical-fresh, issue 48 item 1): its ids resolve,
its judgments name chunks of the shared corpus and follow from its reading, its splits share no topic
group, its forms have the sizes the issue asks for, and the questions naming a record that is not in
the corpus have no answer. Pure: reads the committed files only."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from unit.testsets.judged_collection import (
    assert_every_judged_chunk_is_in_the_corpus,
    assert_ids_resolve_and_share_the_clinical_corpus,
    assert_judgments_are_what_the_reading_gives,
    judgments,
    queries,
)

from control_plane.evaluation.natural_set.build import INTENTS, SPLITS, query_split
from control_plane.testsets.catalog import load_test_set

FORMS = {"implicit", "named_record", "many_records", "topic", "paraphrase", "two_intent", "no_topic"}


def _queries() -> list[dict[str, Any]]:
    return queries("clinical-fresh")


def _judgments() -> list[dict[str, Any]]:
    return judgments("clinical-fresh")


def _absent() -> set[str]:
    return {q["_id"] for q in _queries() if q["metadata"].get("absent_id")}


@pytest.mark.parametrize("split", SPLITS)
def test_ids_resolve_and_share_the_clinical_corpus(split: str) -> None:
    assert_ids_resolve_and_share_the_clinical_corpus("clinical-fresh", split)


def test_every_judged_chunk_is_in_the_corpus() -> None:
    assert_every_judged_chunk_is_in_the_corpus("clinical-fresh")


def test_the_forms_the_issue_asks_for() -> None:
    queries = _queries()
    forms = Counter(q["metadata"]["form"] for q in queries)
    assert len(queries) >= 120 and len({q["_id"] for q in queries}) == len(queries)
    assert forms["implicit"] >= 30 and forms["named_record"] >= 20 and forms["many_records"] >= 20
    for query in queries:
        metadata = query["metadata"]
        assert metadata["form"] in FORMS and set(metadata["intents"]) <= set(INTENTS), query["_id"]
        assert metadata["split"] in SPLITS, query["_id"]


def test_splits_share_no_topic_group_and_hold_every_answerable_question() -> None:
    dev, test = (load_test_set(f"clinical-fresh/{split}").qrels() for split in SPLITS)
    assert not set(dev) & set(test)
    assert set(dev) | set(test) == {q["_id"] for q in _queries()} - _absent()
    groups: dict[str, set[str]] = defaultdict(set)
    for query in _queries():
        groups[query["metadata"]["group"]].add(query_split(_queries())[query["_id"]])
    assert all(len(found) == 1 for found in groups.values())


def test_a_question_naming_an_absent_record_has_no_answer_and_the_others_have_one() -> None:
    best: dict[str, int] = defaultdict(int)
    for row in _judgments():
        best[row["query_id"]] = max(best[row["query_id"]], row["grade"])
    assert len(_absent()) == 3
    assert all(best[q] == 0 for q in _absent())
    answerable = [q["_id"] for q in _queries() if q["_id"] not in _absent()]
    assert all(best[q] >= 1 for q in answerable)
    assert sum(best[q] == 2 for q in answerable) >= 0.95 * len(answerable)


def test_judgments_are_what_the_reading_gives(tmp_path: Path) -> None:
    assert_judgments_are_what_the_reading_gives("clinical-fresh", tmp_path)
