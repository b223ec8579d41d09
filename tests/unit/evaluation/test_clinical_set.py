"""The clinical collection: its committed files agree with the records they were built from, splits
share no record or template, judgments follow the structure rule, and building is deterministic."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache

import pytest
from chunk_samples import sample_chunk

from control_plane.datasets.locate import project_testsets_root
from control_plane.evaluation.clinical_set.build import (
    MEDLINE_SUBSET,
    build_queries,
    clinical_documents,
    split_of,
)
from control_plane.evaluation.clinical_set.judgments import MIN_ANSWER_WORDS, answer_words, answers, judge
from control_plane.evaluation.clinical_set.records import Record, to_record
from control_plane.evaluation.clinical_set.templates import BANKS, INTENTS
from control_plane.ingestion.chunking import Chunk
from control_plane.ingestion.parsers import parse_documents
from control_plane.testsets.catalog import load_test_set

FOLDER = project_testsets_root() / "clinical"
REBUILD = "rebuild it with `python -m control_plane.evaluation.clinical_set --out testsets/clinical`"


@cache
def records() -> dict[str, Record]:
    documents = clinical_documents() + list(parse_documents([FOLDER / MEDLINE_SUBSET]))
    return {document.doc_id: to_record(document) for document in documents}


@cache
def corpus() -> dict[str, dict[str, object]]:
    with (FOLDER / "corpus.jsonl").open(encoding="utf-8") as lines:
        return {row["_id"]: row for row in map(json.loads, lines)}


def queries(split: str) -> list[dict[str, object]]:
    test_set = load_test_set(f"clinical/{split}")
    return [{"id": q.query_id, "text": q.text, **q.metadata} for q in test_set.queries()]


def test_the_collection_is_large_enough_and_covers_every_intent_and_form() -> None:
    dev, test = queries("dev"), queries("test")
    assert len(dev) + len(test) >= 200
    for split in (dev, test):
        intents = Counter(i for q in split for i in q["intents"])  # type: ignore[attr-defined]
        assert set(intents) == set(INTENTS), intents
        forms = Counter(str(q["form"]) for q in split)
        assert set(forms) == {"exact", "paraphrase", "complex", "none"}, forms
        assert any(len(q["intents"]) == 2 for q in split)  # type: ignore[arg-type]


def test_splits_share_no_record_and_no_query() -> None:
    dev, test = queries("dev"), queries("test")
    assert not {q["record"] for q in dev} & {q["record"] for q in test}
    assert not {q["id"] for q in dev} & {q["id"] for q in test}
    assert all(split_of(str(q["record"])) == "dev" for q in dev)
    assert all(split_of(str(q["record"])) == "test" for q in test)


def test_dev_and_test_use_different_wording() -> None:
    def phrasings(bank_name: str) -> set[str]:
        bank = BANKS[bank_name]
        words = {p for w in bank.intents.values() for p in (*w.exact, *w.paraphrase)}
        return words | set(bank.topical[1:]) | set(bank.joiners) | set(bank.population_outcome)

    assert not phrasings("dev") & phrasings("test")


def test_every_judged_chunk_exists_in_the_corpus_and_in_todays_chunking() -> None:
    chunk_ids = {item.chunk_id for record in records().values() for item in record.chunks}
    assert set(corpus()) == chunk_ids, f"the collection no longer matches the chunker: {REBUILD}"
    for split in ("dev", "test"):
        for judgments in load_test_set(f"clinical/{split}").qrels().values():
            assert set(judgments) <= chunk_ids


def test_judgments_follow_the_structure_rule() -> None:
    by_id = {item.chunk_id: item for record in records().values() for item in record.chunks}
    for split in ("dev", "test"):
        qrels = load_test_set(f"clinical/{split}").qrels()
        for query in queries(split):
            judged = qrels[str(query["id"])]
            record = records()[str(query["record"])]
            assert set(judged) == {item.chunk_id for item in record.chunks}  # the named record, whole
            intents = list(query["intents"]) or ["none"]  # type: ignore[call-overload]
            best = {c for c, grade in judged.items() if grade == 2}
            assert best, query  # every question has an answer
            assert all(any(answers(by_id[c], i) for i in intents) for c in best)
            assert not any(any(answers(by_id[c], i) for i in intents) for c in set(judged) - best)


def test_building_the_queries_is_deterministic() -> None:
    chosen = [r for r in records().values() if r.source == "ctgov"][:10]
    judged = {r.doc_id for r in chosen}
    first, second = build_queries(chosen, judged), build_queries(chosen, judged)
    assert first == second
    assert [q.judgments for q in first] == [q.judgments for q in second]  # judgments too


def _chunk(text: str, section: str, label: str = "", chunk_id: str = "d:0") -> Chunk:
    return sample_chunk(
        chunk_id=chunk_id,
        text=text,
        end=len(text),
        section=section,
        section_label=label,
        tenant_id="t",
        doc_type="trial",
    )


def test_a_stub_section_is_not_an_answer() -> None:
    stub = _chunk(
        "Adverse Events. Time frame: 12 months after the first dose.", "adverse_events", "Adverse Events"
    )
    full = _chunk(
        "Nausea was reported by 12 of 40 participants and headache by 5 of 40 in the treatment arm.",
        "adverse_events",
        "Adverse Events",
        chunk_id="d:1",
    )
    design = _chunk(
        "Randomised, double-blind, placebo-controlled, parallel groups of 40 adults.",
        "design",
        chunk_id="d:2",
    )
    assert answer_words(stub) < MIN_ANSWER_WORDS <= answer_words(full)
    assert not answers(stub, "adverse_events") and answers(full, "adverse_events")
    record = Record("d", "ctgov", "T", ("NCT1",), (), (), (stub, full, design))
    assert judge(record, ["adverse_events"]) == {"d:0": 1, "d:1": 2, "d:2": 1}
    assert judge(record, ["adverse_events", "methods"]) == {"d:0": 1, "d:1": 2, "d:2": 2}


def test_unknown_intent_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown intent"):
        answers(_chunk("x " * 20, "methods"), "nausea")


def test_split_of_is_a_fixed_hash_of_the_record_id() -> None:
    # sha256 of the id, first 8 hex digits, even -> dev: fixed values, so splits never move.
    assert split_of("NCT00023673") == "dev" and split_of("NCT02028676") == "test"
    assert {split_of(f"NCT{n:08d}") for n in range(20)} == {"dev", "test"}


def test_the_readme_states_the_rule_and_its_limits() -> None:
    text = (FOLDER / "README.md").read_text(encoding="utf-8")
    for words in (
        "silver standard",
        "grade 2",
        "grade 1",
        "dev",
        "test",
        "python -m control_plane.evaluation.clinical_set",
    ):
        assert words in text
