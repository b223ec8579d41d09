"""Split the questions by topic group and write ``qrels/<split>.tsv`` and ``build.json`` from the judgments.

Split rule (fixed, no choice per question): a topic group is in dev when the SHA-256 of its id, read as a
number, is even, else in test (a collection whose author fixed the split per group keeps it). Questions
of one group never straddle the splits, and adding or dropping a question moves no other group.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SPLITS = ("dev", "test")
INTENTS = ("eligibility", "adverse_events", "dosage", "results", "methods", "indications", "tabular")
FORMS = ("topic", "no_topic", "named_record", "paraphrase", "two_intent")
GRADES = (0, 1, 2)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def group_split(group: str) -> str:
    """The split of a topic group: dev when the SHA-256 of its id is even."""
    return SPLITS[int(hashlib.sha256(group.encode("utf-8")).hexdigest(), 16) % 2]


def query_split(queries: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """Query id -> split: the question's own ``split`` when its collection fixed one per topic group
    (clinical-fresh, split by its author before any judging), else its group's hash (``group_split``)."""
    return {
        str(query["_id"]): str(query["metadata"].get("split") or group_split(str(query["metadata"]["group"])))
        for query in queries
    }


def build(folder: Path) -> dict[str, Any]:
    """Write ``qrels/dev.tsv``, ``qrels/test.tsv`` (grades 1 and 2) and ``build.json``; return the summary."""
    queries = read_jsonl(folder / "queries.jsonl")
    judgments = read_jsonl(folder / "judgments.jsonl")
    splits = query_split(queries)
    by_split: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    grades: Counter[int] = Counter()
    for judgment in judgments:
        query_id, chunk_id, grade = (
            str(judgment["query_id"]),
            str(judgment["chunk_id"]),
            int(judgment["grade"]),
        )
        if grade not in GRADES:
            raise ValueError(f"grade {grade} for ({query_id}, {chunk_id}) is not one of {GRADES}")
        grades[grade] += 1
        if grade > 0:
            by_split[splits[query_id]].append((query_id, chunk_id, grade))
    (folder / "qrels").mkdir(exist_ok=True)
    for split in SPLITS:
        rows = sorted(by_split[split], key=lambda row: (row[0], row[1]))
        text = "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{c}\t{g}\n" for q, c, g in rows)
        (folder / "qrels" / f"{split}.tsv").write_text(text, encoding="utf-8")
    summary = _summary(queries, splits, grades, len(judgments))
    (folder / "build.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return summary


def _summary(
    queries: list[dict[str, Any]], splits: Mapping[str, str], grades: Counter[int], judged: int
) -> dict[str, Any]:
    by_split: dict[str, Any] = {}
    for split in SPLITS:
        chosen = [query for query in queries if splits[str(query["_id"])] == split]
        intents: Counter[str] = Counter()
        for query in chosen:
            intents.update(query["metadata"]["intents"] or ["none"])
        by_split[split] = {
            "queries": len(chosen),
            "groups": len({query["metadata"]["group"] for query in chosen}),
            "by_intent": dict(sorted(intents.items())),
            "by_form": dict(sorted(Counter(query["metadata"]["form"] for query in chosen).items())),
            "paraphrase": sum(bool(query["metadata"].get("paraphrase")) for query in chosen),
        }
    return {
        "queries": len(queries),
        "judged_pairs": judged,
        "grades": {str(grade): grades[grade] for grade in GRADES},
        "splits": by_split,
    }
