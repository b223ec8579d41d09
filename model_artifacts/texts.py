"""The texts parity is measured on: a fixed batch of short and long texts, and an NFCorpus sample.

The fixed batch mixes one-word queries with passages longer than every model's max length, so one padded
run exercises padding, masking and truncation together.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

_LONG = (
    "Low-dose aspirin reduces the risk of myocardial infarction and ischaemic stroke by irreversibly "
    "inhibiting platelet cyclooxygenase-1, but the same mechanism raises the risk of gastrointestinal and "
    "intracranial bleeding, so guidelines weigh absolute cardiovascular benefit against bleeding risk. "
)
FIXED_TEXTS: tuple[str, ...] = (
    "aspirin",
    "aspirin bleeding",
    "Do statins reduce breast cancer recurrence?",
    "BRCA1 mutation carriers and ovarian cancer screening",
    "Vitamin D supplementation in children with asthma: a randomized trial.",
    "The patient was started on metformin 500 mg twice daily for type 2 diabetes mellitus.",
    _LONG * 2,
    _LONG * 12,  # far beyond 384 tokens: truncated by every model
)


@dataclass(frozen=True)
class QuerySample:
    queries: list[str]
    documents: list[str]


def nfcorpus_sample(folder: Path, n_queries: int, n_documents: int) -> QuerySample:
    """The first ``n_queries`` dev queries (qrels order) and the first ``n_documents`` corpus documents."""
    query_ids: list[str] = []
    with (folder / "qrels" / "dev.tsv").open(encoding="utf-8") as qrels:
        next(qrels)  # header
        for line in qrels:
            qid = line.split("\t", 1)[0]
            if qid not in query_ids:
                query_ids.append(qid)
            if len(query_ids) == n_queries:
                break
    wanted = set(query_ids)
    texts: dict[str, str] = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as queries:
        for line in queries:
            record = json.loads(line)
            if record["_id"] in wanted:
                texts[record["_id"]] = record["text"]
    documents: list[str] = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as corpus:
        for line in corpus:
            record = json.loads(line)
            documents.append(f"{record.get('title', '')}\n{record['text']}".strip())
            if len(documents) == n_documents:
                break
    return QuerySample(queries=[texts[q] for q in query_ids], documents=documents)
