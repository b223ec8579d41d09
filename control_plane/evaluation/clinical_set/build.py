"""Build the clinical test collection (BEIR layout) from the shared records, reproducibly.

    python -m control_plane.evaluation.clinical_set --out testsets/clinical

Records: every ClinicalTrials.gov study and PMC article in the shared datasets, and the first
``MEDLINE_JUDGED`` randomised-trial citations with labelled abstracts of one MEDLINE file (plus the
next ``MEDLINE_DISTRACTORS`` labelled abstracts as unjudged distractors). Each record falls in dev or
test by a hash of its id, so no record is in both; dev and test queries use different template banks.
Everything is a function of the inputs and ``SEED``: building twice gives the same files.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import shutil
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from control_plane.datasets.locate import dataset_folder
from control_plane.evaluation.clinical_set.judgments import NO_INTENT, answer_chunks, judge
from control_plane.evaluation.clinical_set.records import (
    Record,
    is_structured_trial_abstract,
    medline_articles,
    to_record,
    write_medline_subset,
)
from control_plane.evaluation.clinical_set.templates import BANKS, INTENTS, TemplateBank
from control_plane.ingestion.chunking import CHUNKER_VERSION
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers import parse_documents, unique_documents

SEED: Final = 15
BUILDER_VERSION: Final = "1"
MEDLINE_FILE: Final = "pubmed21n1298.xml.gz"
MEDLINE_JUDGED: Final = 40
MEDLINE_DISTRACTORS: Final = 160
MEDLINE_SUBSET: Final = "medline-subset.xml.gz"
SINGLE_INTENTS_PER_RECORD: Final = {"ctgov": 2, "pmc": 3, "medline": 2}
_TOPIC_TAIL = re.compile(r"\s*\b(in|of|for|to|by)?\s*\{topic\}$")


@dataclass(frozen=True)
class ClinicalQuery:
    query_id: str
    text: str
    record: str
    split: str
    form: str  # exact | paraphrase | complex | none
    intents: tuple[str, ...]
    judgments: dict[str, int] = field(compare=False)


def split_of(doc_id: str) -> str:
    """dev or test, by a hash of the record id (stable across builds and machines)."""
    return "dev" if int(hashlib.sha256(doc_id.encode()).hexdigest()[:8], 16) % 2 == 0 else "test"


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".")


def exact_topic(record: Record, rng: random.Random) -> str:
    """A name the record itself uses: its NCT id or acronym (trials, half the time) or its title."""
    if record.source == "ctgov" and record.identifiers and rng.random() < 0.5:
        return (
            record.identifiers[0]
            if rng.random() < 0.7 or len(record.identifiers) < 2
            else record.identifiers[1]
        )
    return _clean(record.title)


def paraphrase_topic(record: Record) -> str:
    """The record's intervention and condition in plain words (its title when it names neither)."""
    intervention = _plain(record.interventions[0]) if record.interventions else ""
    condition = _plain(record.conditions[0]) if record.conditions else ""
    if intervention and condition:
        return f"the {intervention} trial in {condition}"
    if intervention or condition:
        return f"the {intervention or condition} study"
    return _clean(record.title)


def _plain(name: str) -> str:
    """A condition or drug name as a person would type it: lower case, no parenthetical."""
    return _clean(re.sub(r"\(.*?\)", " ", name)).lower()


def _phrase(bank: TemplateBank, intent: str, form: str, rng: random.Random) -> str:
    words = bank.intents[intent]
    return rng.choice(words.exact if form == "exact" else words.paraphrase)


def _tail_free(phrasing: str) -> str | None:
    """The phrasing without its trailing topic ("dose {topic}" -> "dose"), None if the topic is inside."""
    if not phrasing.endswith("{topic}"):
        return None
    return _TOPIC_TAIL.sub("", phrasing)


def record_queries(
    record: Record, bank: TemplateBank, rng: random.Random, asked: Counter[str]
) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """(form, text, intents) of the questions asked of one record. Its single-intent questions take
    the intents the split has asked least so far (``asked``, updated), so rare sections are not rarer."""
    available = [intent for intent in INTENTS if answer_chunks(record, [intent])]
    ranked = sorted(available, key=lambda intent: (asked[intent], rng.random()))
    chosen = ranked[: SINGLE_INTENTS_PER_RECORD[record.source]]
    asked.update(chosen)
    for intent in chosen:
        form = rng.choice(("exact", "paraphrase"))
        topic = exact_topic(record, rng) if form == "exact" else paraphrase_topic(record)
        yield form, _phrase(bank, intent, form, rng).format(topic=topic), (intent,)
    if record.source == "medline" or len(available) < 2:
        if record.conditions and "results" in available:
            population = _plain(record.conditions[0])
            template = rng.choice(bank.population_outcome)
            topic = (
                f"the {record.interventions[0].lower()} trial"
                if record.interventions
                else _clean(record.title)
            )
            yield "complex", template.format(population=population, topic=topic), ("results",)
    else:
        first, second = rng.sample(available, 2)
        form = rng.choice(("exact", "paraphrase"))
        head = _phrase(bank, first, form, rng)
        tails = [t for t in (bank.intents[second].exact + bank.intents[second].paraphrase) if _tail_free(t)]
        if tails:
            tail = _tail_free(rng.choice(tails)) or ""
            topic = exact_topic(record, rng) if form == "exact" else paraphrase_topic(record)
            # The second intent's words come first so the topic stays at the end of the question.
            text = f"{tail} {rng.choice(bank.joiners)} {head.format(topic=topic)}"
            yield "complex", text, (second, first)
    if rng.random() < 0.5 and answer_chunks(record, []):
        topic = exact_topic(record, rng) if rng.random() < 0.5 else paraphrase_topic(record)
        yield NO_INTENT, rng.choice(bank.topical).format(topic=topic), ()


def build_queries(records: Sequence[Record], judged: set[str]) -> list[ClinicalQuery]:
    queries: list[ClinicalQuery] = []
    asked: dict[str, Counter[str]] = {"dev": Counter(), "test": Counter()}
    for record in sorted(records, key=lambda r: r.doc_id):
        if record.doc_id not in judged:
            continue
        split = split_of(record.doc_id)
        rng = random.Random(f"{SEED}:{record.doc_id}")
        for number, (form, text, intents) in enumerate(
            record_queries(record, BANKS[split], rng, asked[split])
        ):
            queries.append(
                ClinicalQuery(
                    query_id=f"{record.doc_id}-q{number}",
                    text=_clean(text),
                    record=record.doc_id,
                    split=split,
                    form=form,
                    intents=intents,
                    judgments=judge(record, intents),
                )
            )
    return queries


def medline_selection(path: Path) -> tuple[list[Document], list[Document]]:
    """(judged, distractors): the first randomised trials with labelled abstracts, then other
    labelled abstracts, in file order."""
    judged: list[Document] = []
    distractors: list[Document] = []
    for document in parse_documents([path]):
        kinds = {section.kind for section in document.sections}
        if is_structured_trial_abstract(document) and len(judged) < MEDLINE_JUDGED:
            judged.append(document)
        elif {"methods", "results"} <= kinds and len(distractors) < MEDLINE_DISTRACTORS:
            distractors.append(document)
        if len(judged) >= MEDLINE_JUDGED and len(distractors) >= MEDLINE_DISTRACTORS:
            break
    return judged, distractors


def _folder(name: str, root: Path | None) -> Path:
    return root / name if root is not None else dataset_folder(name)


def clinical_documents(root: Path | None = None) -> list[Document]:
    """Trials and articles, one per id: the most complete form of a record seen twice, as ingest keeps
    (``root``: a folder holding clinicaltrials/ and pmc/; by default where each dataset is found)."""
    return unique_documents(parse_documents([_folder("clinicaltrials", root), _folder("pmc", root)]))


def build(out: Path, root: Path | None = None) -> dict[str, object]:
    """Write the collection to ``out`` and return its summary (also written as build.json)."""
    medline_path = _folder("medline", root) / MEDLINE_FILE
    judged_medline, distractors = medline_selection(medline_path)
    documents = clinical_documents(root) + judged_medline + distractors
    records = [to_record(document) for document in documents]
    judged = {r.doc_id for r in records if r.source in ("ctgov", "pmc")} | {d.doc_id for d in judged_medline}
    queries = build_queries(records, judged)

    (out / "qrels").mkdir(parents=True, exist_ok=True)  # the files below are replaced; a README stays
    subset = [d.doc_id for d in judged_medline + distractors]
    articles = list(medline_articles(medline_path, subset))
    raw = out / "medline-subset.xml"
    write_medline_subset(raw, articles)
    with raw.open("rb") as source, gzip.GzipFile(out / MEDLINE_SUBSET, "wb", mtime=0) as target:
        shutil.copyfileobj(source, target)
    raw.unlink()
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as corpus:
        for record in sorted(records, key=lambda r: r.doc_id):
            for item in record.chunks:
                row = {
                    "_id": item.chunk_id,
                    "title": item.title_path,
                    "text": item.text,
                    "metadata": {
                        "doc_id": item.doc_id,
                        "source": item.source,
                        "section": item.section,
                        "intent_hint": item.intent_hint,
                        "is_table": item.is_table,
                    },
                }
                corpus.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as lines:
        for query in queries:
            metadata = {"record": query.record, "form": query.form, "intents": list(query.intents)}
            lines.write(json.dumps({"_id": query.query_id, "text": query.text, "metadata": metadata}) + "\n")
    for split in ("dev", "test"):
        with (out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as qrels:
            qrels.write("query-id\tcorpus-id\tscore\n")
            for query in queries:
                if query.split == split:
                    for chunk_id, grade in query.judgments.items():
                        qrels.write(f"{query.query_id}\t{chunk_id}\t{grade}\n")
    summary = _summary(queries, records, judged)
    (out / "build.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return summary


def _summary(
    queries: Sequence[ClinicalQuery], records: Sequence[Record], judged: set[str]
) -> dict[str, object]:
    def count(key: str) -> dict[str, dict[str, int]]:
        table: dict[str, Counter[str]] = {"dev": Counter(), "test": Counter()}
        for query in queries:
            values = list(query.intents) or [NO_INTENT] if key == "intent" else [query.form]
            if key == "intents_per_query":
                values = [str(len(query.intents))]
            table[query.split].update(values)
        return {split: dict(sorted(counter.items())) for split, counter in table.items()}

    return {
        "builder_version": BUILDER_VERSION,
        "chunker_version": CHUNKER_VERSION,
        "chunking": {"strategy": "sentence", "token_budget": "ingest default"},
        "seed": SEED,
        "records": dict(Counter(r.source for r in records)),
        "judged_records": {s: sum(1 for d in judged if split_of(d) == s) for s in ("dev", "test")},
        "chunks": sum(len(r.chunks) for r in records),
        "queries": dict(Counter(q.split for q in queries)),
        "queries_by_intent": count("intent"),
        "queries_by_form": count("form"),
    }
