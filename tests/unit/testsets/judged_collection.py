"""What every judged clinical collection that shares the clinical corpus is checked for (testsets/
clinical-fresh, clinical-everyday): its files read once, its ids resolved, its judged chunks in the corpus,
its judgments what its reading gives."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from control_plane.datasets.locate import project_testsets_root
from control_plane.evaluation.natural_set.build import read_jsonl
from control_plane.evaluation.natural_set.judge import judge
from control_plane.testsets.catalog import load_test_set


@cache
def queries(name: str) -> list[dict[str, Any]]:
    return read_jsonl(project_testsets_root() / name / "queries.jsonl")


@cache
def judgments(name: str) -> list[dict[str, Any]]:
    return read_jsonl(project_testsets_root() / name / "judgments.jsonl")


def assert_ids_resolve_and_share_the_clinical_corpus(name: str, split: str) -> None:
    test_set = load_test_set(f"{name}/{split}")
    assert test_set.corpus_folder == project_testsets_root() / "clinical"
    assert {query.query_id for query in test_set.queries()} == set(test_set.qrels())


def assert_every_judged_chunk_is_in_the_corpus(name: str) -> None:
    corpus = {document.doc_id for document in load_test_set(f"{name}/dev").corpus()}
    judged = {row["chunk_id"] for row in judgments(name)}
    assert judged <= corpus, sorted(judged - corpus)[:5]


def assert_judgments_are_what_the_reading_gives(name: str, tmp_path: Path) -> None:
    folder = project_testsets_root() / name
    for file in ("queries.jsonl", "reading.tsv", "topics.json", "pool.jsonl", "added.jsonl"):
        (tmp_path / file).write_bytes((folder / file).read_bytes())
    assert judge(tmp_path) == judgments(name)
