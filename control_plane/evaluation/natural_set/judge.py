"""Grades from reading: ``reading.tsv`` says, for every pooled chunk that was read, what it answers
(upper case: answers; lower case: partly answers; E eligibility, A adverse events, D dosage, R results,
M methods, I indications, T numbers or tables, N an overview of its record's topic). ``topics.json`` says
which records are on a question's topic (and which only partly, e.g. a basket trial for one cancer).

For a question with intents I (none: topic only) and a pooled chunk c of record r:

- r off the topic (questions that name a topic): 0;
- 2 when c answers one of I (a topic-only question: when c is an overview);
- 1 when c partly answers one of I, or is an overview of an on-topic record, or (topic-only questions)
  any other chunk of an on-topic record;
- records only partly on the topic give at most 1; questions with no topic judge every record.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from control_plane.evaluation.natural_set.build import read_jsonl

LETTERS = {
    "eligibility": "E",
    "adverse_events": "A",
    "dosage": "D",
    "results": "R",
    "methods": "M",
    "indications": "I",
    "tabular": "T",
}
OVERVIEW = "N"


def read_reading(path: Path) -> dict[str, str]:
    """chunk id -> answer letters, from ``chunk-id<TAB>answers`` rows (header row first)."""
    rows = path.read_text(encoding="utf-8").splitlines()[1:]
    return {chunk_id: answers for chunk_id, _, answers in (row.partition("\t") for row in rows if row)}


def grade(intents: Iterable[str], answers: str, on_topic: bool, partial: bool, has_topic: bool) -> int:
    """The grade of one chunk for one question (see the module docstring)."""
    if has_topic and not on_topic:
        return 0
    wanted = {LETTERS[intent] for intent in intents} or {OVERVIEW}
    full = {letter for letter in answers if letter.isupper()}
    part = {letter.upper() for letter in answers if letter.islower()}
    if wanted & full:
        best = 2
    elif wanted & part or (has_topic and (OVERVIEW in full or wanted == {OVERVIEW})):
        best = 1
    else:
        best = 0
    return min(best, 1) if partial else best


def judge(folder: Path) -> list[dict[str, Any]]:
    """Grade every pooled (query, chunk) pair of ``folder``; write and return ``judgments.jsonl`` rows."""
    queries = {str(query["_id"]): query for query in read_jsonl(folder / "queries.jsonl")}
    reading = read_reading(folder / "reading.tsv")
    topics: Mapping[str, Any] = json.loads((folder / "topics.json").read_text(encoding="utf-8"))
    pool = read_jsonl(folder / "pool.jsonl") + read_jsonl(folder / "added.jsonl")
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for pair in pool:
        query_id, chunk_id = str(pair["query_id"]), str(pair["chunk_id"])
        if (query_id, chunk_id) in seen:
            continue
        seen.add((query_id, chunk_id))
        metadata = queries[query_id]["metadata"]
        scope = topics["questions"].get(query_id) or topics["topics"].get(metadata["topic"] or "", {})
        record = chunk_id.split(":chunk:")[0]
        value = grade(
            metadata["intents"],
            reading.get(chunk_id, ""),
            on_topic=record in scope.get("records", ()),
            partial=record in scope.get("partial", ()),
            has_topic=metadata["topic"] is not None,
        )
        rows.append({"query_id": query_id, "chunk_id": chunk_id, "grade": value})
    rows.sort(key=lambda row: (row["query_id"], row["chunk_id"]))
    with (folder / "judgments.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    return rows
