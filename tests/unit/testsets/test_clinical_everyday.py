"""The everyday-words and topic-wide collection (testsets/clinical-everyday, issue 71 item 1): its ids
resolve, its judgments name chunks of the shared corpus and follow from its reading, every chunk of each
question's on-topic records is judged, its splits share no topic group, its forms have the sizes the issue
asks for, and its everyday questions use none of the intents' usual words. Pure: reads the committed
files only."""

from __future__ import annotations

import json
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

from control_plane.datasets.locate import project_testsets_root
from control_plane.evaluation.natural_set.added import record_of
from control_plane.evaluation.natural_set.build import INTENTS, SPLITS, query_split
from control_plane.testsets.catalog import load_test_set

FOLDER = project_testsets_root() / "clinical-everyday"
FORMS = {"everyday", "topic_wide"}
# The intents' usual words (the collection's README): an everyday question holds none, as substrings.
USUAL_WORDS = (
    "adverse", "side effect", "side-effect", "eligib", "inclusion", "exclusion", "criteria", "criterion",
    "dose", "dosage", "dosing", "efficacy", "outcome", "result", "method", "design", "safety", "toxicity",
)  # fmt: skip


def _queries() -> list[dict[str, Any]]:
    return queries("clinical-everyday")


def _judgments() -> list[dict[str, Any]]:
    return judgments("clinical-everyday")


@pytest.mark.parametrize("split", SPLITS)
def test_ids_resolve_and_share_the_clinical_corpus(split: str) -> None:
    assert_ids_resolve_and_share_the_clinical_corpus("clinical-everyday", split)


def test_every_judged_chunk_is_in_the_corpus() -> None:
    assert_every_judged_chunk_is_in_the_corpus("clinical-everyday")


def test_every_chunk_of_a_questions_on_topic_records_is_judged() -> None:
    corpus = [document.doc_id for document in load_test_set("clinical-everyday/dev").corpus()]
    topics = json.loads((FOLDER / "topics.json").read_text(encoding="utf-8"))["questions"]
    judged = {(row["query_id"], row["chunk_id"]) for row in _judgments()}
    for query in _queries():
        scope = topics[query["_id"]]
        records = {*scope["records"], *scope["partial"], *query["metadata"]["records"]}
        assert records, query["_id"]
        missing = [c for c in corpus if record_of(c) in records and (query["_id"], c) not in judged]
        assert not missing, (query["_id"], missing[:3])


def test_the_forms_the_issue_asks_for() -> None:
    queries = _queries()
    forms = Counter(q["metadata"]["form"] for q in queries)
    assert len(queries) >= 150 and len({q["_id"] for q in queries}) == len(queries)
    assert forms["everyday"] >= 60 and forms["topic_wide"] >= 60 and set(forms) == FORMS
    topics = json.loads((FOLDER / "topics.json").read_text(encoding="utf-8"))["questions"]
    for query in queries:
        metadata = query["metadata"]
        assert set(metadata["intents"]) <= set(INTENTS) and metadata["split"] in SPLITS, query["_id"]
        if metadata["form"] == "topic_wide":  # several records share the topic
            assert len(topics[query["_id"]]["records"]) >= 2, query["_id"]


def test_everyday_questions_use_none_of_the_intents_usual_words() -> None:
    for query in _queries():
        if query["metadata"]["form"] == "everyday":
            text = query["text"].lower()
            assert not [word for word in USUAL_WORDS if word in text], query["_id"]


def test_splits_share_no_topic_group_and_every_question_has_an_answer() -> None:
    dev, test = (load_test_set(f"clinical-everyday/{split}").qrels() for split in SPLITS)
    assert not set(dev) & set(test)
    assert set(dev) | set(test) == {q["_id"] for q in _queries()}
    groups: dict[str, set[str]] = defaultdict(set)
    splits = query_split(_queries())
    for query in _queries():
        groups[query["metadata"]["group"]].add(splits[query["_id"]])
    assert all(len(found) == 1 for found in groups.values())
    best: dict[str, int] = defaultdict(int)
    for row in _judgments():
        best[row["query_id"]] = max(best[row["query_id"]], row["grade"])
    assert all(best[q["_id"]] >= 1 for q in _queries())
    assert sum(best[q["_id"]] == 2 for q in _queries()) >= 0.95 * len(_queries())


def test_judgments_are_what_the_reading_gives(tmp_path: Path) -> None:
    assert_judgments_are_what_the_reading_gives("clinical-everyday", tmp_path)
