from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.documents import SECTION_KINDS, Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import dataset_files
from control_plane.ingestion.parsers.ctgov import iter_ctgov, parse_ctgov
from control_plane.ingestion.tokens import HuggingFaceTokenCounter


def _from(documents: list[Document], folder_format: str, name: str) -> Document:
    return next(
        d for d in documents if d.metadata["file"] == name and d.metadata["source_format"] == folder_format
    )


def test_every_registry_file_parses(datasets: Path) -> None:
    files = dataset_files("ctgov", datasets)
    assert len(files) == 76
    for path in files:
        items = list(iter_ctgov(path))
        assert len(items) == 1, path
        assert isinstance(items[0], Document), items[0]


def test_all_three_registry_shapes_are_read(ctgov_documents: list[Document]) -> None:
    formats = Counter(d.metadata["source_format"] for d in ctgov_documents)
    assert formats == {"legacy_xml": 60, "api_v2_json": 13, "classic_json": 3}
    for document in ctgov_documents:
        assert document.source == "ctgov"
        assert document.doc_type == "clinical_trial"
        assert document.doc_id.startswith("NCT")
        assert document.url == f"https://clinicaltrials.gov/study/{document.doc_id}"
        assert {s.kind for s in document.sections} <= SECTION_KINDS


def test_eligibility_is_split_into_inclusion_and_exclusion(ctgov_documents: list[Document]) -> None:
    for fmt, name in (("legacy_xml", "NCT00001177.xml"), ("api_v2_json", "NCT02210780.json")):
        document = _from(ctgov_documents, fmt, name)
        kinds = [s.kind for s in document.sections if s.title_path[0] == "Eligibility"]
        assert kinds == ["eligibility", "inclusion", "exclusion"], (name, kinds)
        inclusion = next(s for s in document.sections if s.kind == "inclusion")
        assert json.loads(inclusion.facet_json or "{}")["minimum_age"] == "18 Years"
    split = sum(any(s.kind == "inclusion" for s in d.sections) for d in ctgov_documents)
    assert split >= 60


def test_json_markdown_escapes_are_removed(ctgov_documents: list[Document]) -> None:
    document = _from(ctgov_documents, "api_v2_json", "NCT02210780.json")
    assert "\\<" not in document.text and "\\[" not in document.text
    exclusion = document.span_text(next(s for s in document.sections if s.kind == "exclusion"))
    assert "Patients needing >10 mg of daily prednisone" in exclusion


def test_planned_outcomes_carry_structured_facets(ctgov_documents: list[Document]) -> None:
    document = _from(ctgov_documents, "legacy_xml", "NCT01029262.xml")
    primary = next(s for s in document.sections if s.label == "Primary Outcome Measures")
    assert primary.kind == "outcomes"
    facts = json.loads(primary.facet_json or "{}")["outcome_measures"]
    assert facts[0]["category"] == "primary"
    assert facts[0]["time_frame"]
    assert facts[0]["measure"] in document.span_text(primary)


def test_interventions_carry_dosage_facts(ctgov_documents: list[Document]) -> None:
    document = _from(ctgov_documents, "api_v2_json", "NCT02210780.json")
    arms = next(s for s in document.sections if s.label == "Arms")
    arm_facts = json.loads(arms.facet_json or "{}")["arms"]
    dupilumab = next(a for a in arm_facts if a["label"] == "Dupilumab 300 mg qw")
    assert "300 mg" in dupilumab["doses"]
    assert "subcutaneous" in dupilumab["routes"]


def test_results_become_outcome_and_adverse_event_tables(ctgov_documents: list[Document]) -> None:
    document = _from(ctgov_documents, "api_v2_json", "NCT02210780.json")
    kinds = Counter(t.kind for t in document.tables)
    assert kinds == {"outcome_results": 11, "adverse_events": 2}
    serious = next(t for t in document.tables if t.label == "Serious adverse events")
    assert serious.row_lines[0].startswith("Organ system | Adverse event | Placebo qw")
    assert "Immune system disorders | Serum sickness-like reaction | 0/97 | 1/97" in serious.row_lines
    assert len(serious.row_lines) == 1 + len(json.loads(serious.facet_json or "{}")["events"])
    assert serious.html.count("<tr>") == len(serious.row_lines)


def test_legacy_xml_and_classic_json_agree(ctgov_documents: list[Document]) -> None:
    xml = _from(ctgov_documents, "legacy_xml", "NCT00023673.xml")
    classic = _from(ctgov_documents, "classic_json", "NCT00023673.json")
    assert xml.doc_id == classic.doc_id == "NCT00023673"
    assert xml.title == classic.title
    assert xml.publication_date == classic.publication_date
    assert [s.kind for s in xml.sections] == [s.kind for s in classic.sections]
    assert Counter(t.kind for t in xml.tables) == Counter(t.kind for t in classic.tables)


def test_eligibility_and_adverse_event_intents(
    ctgov_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    document = _from(ctgov_documents, "legacy_xml", "NCT01029262.xml")
    chunks = chunk(document, "section", counter=token_counter)
    eligibility = [c for c in chunks if c.section in {"eligibility", "inclusion", "exclusion"}]
    assert eligibility and all(c.intent_hint == "eligibility" for c in eligibility)
    ae_tables = [c for c in chunks if c.is_table and c.section == "adverse_events"]
    assert len(ae_tables) == 2
    assert all(c.intent_hint == "ae" for c in ae_tables)
    assert all(c.table_lines and c.table_html for c in ae_tables)
    endpoints = [c for c in chunks if c.section == "outcomes"]
    assert endpoints and all(c.intent_hint == "endpoint" and c.facet_json for c in endpoints)


def test_record_with_identification_only(ctgov_documents: list[Document]) -> None:
    document = _from(ctgov_documents, "api_v2_json", "NCT03453554.json")
    assert document.title == "Evaluating a Digital..."
    assert document.sections == () and document.tables == ()


@pytest.mark.parametrize(
    ("name", "content", "location"),
    [
        ("broken.json", '{"protocolSection": {"identificationModule": ', "line 1, column 46"),
        ("empty.json", '{"something": 1}', "$"),
        ("noid.json", '{"protocolSection": {"identificationModule": {}}}', "study #0"),
        ("truncated.xml", "<clinical_study><id_info><nct_id>NCT1</nct_id>", "line 1, column 47"),
        ("noid.xml", "<clinical_study><brief_title>x</brief_title></clinical_study>", "/clinical_study"),
    ],
)
def test_malformed_records_are_reported(tmp_path: Path, name: str, content: str, location: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    (error,) = list(iter_ctgov(path))
    assert isinstance(error, ParseError)
    assert (error.path, error.location) == (path, location)
    with pytest.raises(ParseError):
        list(parse_ctgov(path))
