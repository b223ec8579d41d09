"""Every chunk of a question's on-topic records is judged, pooled or not (natural_set/added.py)."""

from __future__ import annotations

import json
from pathlib import Path

from control_plane.evaluation.natural_set.added import REASON, added_pairs, record_of, write_added

CORPUS = ["NCT1:chunk:0", "NCT1:chunk:1", "NCT2:chunk:0", "777:chunk:0", "777:chunk:1", "888:chunk:0"]


def _query(query_id: str, records: list[str]) -> dict[str, object]:
    return {"_id": query_id, "text": "q", "metadata": {"records": records}}


def test_a_chunk_id_names_its_record() -> None:
    assert record_of("NCT1:chunk:12") == "NCT1" and record_of("PMC9:chunk:0") == "PMC9"


def test_the_chunks_of_on_topic_and_partial_records_the_pool_missed_are_added_once() -> None:
    topics = {"questions": {"q1": {"records": ["NCT1", "777"], "partial": ["NCT2"]}}}
    pool = [{"query_id": "q1", "chunk_id": "NCT1:chunk:0"}, {"query_id": "q1", "chunk_id": "888:chunk:0"}]
    rows = added_pairs([_query("q1", ["NCT1"])], topics, pool, CORPUS)
    assert [row["chunk_id"] for row in rows] == ["777:chunk:0", "777:chunk:1", "NCT1:chunk:1", "NCT2:chunk:0"]
    assert {row["query_id"] for row in rows} == {"q1"} and {row["reason"] for row in rows} == {REASON}


def test_a_question_without_a_topic_entry_adds_its_authors_records() -> None:
    rows = added_pairs([_query("q2", ["888"])], {"questions": {}}, [], CORPUS)
    assert rows == [{"query_id": "q2", "chunk_id": "888:chunk:0", "reason": REASON}]
    assert added_pairs([_query("q3", [])], {"questions": {}}, [], CORPUS) == []


def test_the_file_is_written_beside_the_pool(tmp_path: Path) -> None:
    (tmp_path / "queries.jsonl").write_text(json.dumps(_query("q1", ["NCT2"])) + "\n", encoding="utf-8")
    (tmp_path / "topics.json").write_text(json.dumps({"questions": {}}), encoding="utf-8")
    (tmp_path / "pool.jsonl").write_text("", encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"_id": c}) + "\n" for c in CORPUS), encoding="utf-8")
    assert write_added(tmp_path, corpus) == 1
    assert json.loads((tmp_path / "added.jsonl").read_text(encoding="utf-8"))["chunk_id"] == "NCT2:chunk:0"
