"""A record's own identifiers ride on every chunk of it (issue 15, item 4.1), over the real records."""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path

from control_plane.ingestion.chunking import Chunk, chunk, content_hash
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers import dataset_files, parse_medline
from control_plane.ingestion.parsers.study_names import registered_study_names, study_names
from control_plane.ingestion.tokens import HuggingFaceTokenCounter
from control_plane.locations import RESOURCES_DIR

MAPPING = RESOURCES_DIR / "index_templates" / "component" / "chunk-mappings.json"


def _by_file(documents: list[Document], name: str) -> Document:
    return next(d for d in documents if d.metadata["file"] == name)


def test_every_trial_is_identified_by_its_nct_id_first(ctgov_documents: list[Document]) -> None:
    for document in ctgov_documents:
        assert document.identifiers[0] == document.doc_id
        assert len(set(document.identifiers)) == len(document.identifiers)
        assert all(i and i == " ".join(i.split()) for i in document.identifiers)


def test_trial_identifiers_from_all_three_registry_shapes(ctgov_documents: list[Document]) -> None:
    # legacy XML: org study id, secondary ids
    xml = _by_file(ctgov_documents, "NCT00023673.xml")
    assert xml.identifiers == ("NCT00023673", "RTOG L-0117", "CDR0000068850", "NCI-2012-02401")
    # classic JSON of the same trial gives the same identifiers
    assert _by_file(ctgov_documents, "NCT00023673.json").identifiers == xml.identifiers
    # an acronym, and a secondary id equal to the org study id is kept once
    arrow = _by_file(ctgov_documents, "NCT02028676.xml")
    assert arrow.identifiers == ("NCT02028676", "G0300400", "24791884", "ARROW")
    # a merged record: the old NCT id (nct_alias) finds the surviving one
    alias = _by_file(ctgov_documents, "NCT00980226.xml")
    assert alias.doc_id == "NCT00081588"
    assert alias.identifiers[:2] == ("NCT00081588", "NCT00980226")
    # API v2: org study id, secondary id, acronym
    v2 = _by_file(ctgov_documents, "NCT02552212.json")
    assert v2.identifiers == ("NCT02552212", "AS0006", "2015-001894-41", "C-AXSPAND")
    assert _by_file(ctgov_documents, "NCT03630471.json").identifiers == (
        "NCT03630471",
        "SANPRIDE_002",
        "PRIDE",
    )
    assert _by_file(ctgov_documents, "NCT04780763.json").identifiers == (
        "NCT04780763",
        "NU391",
        "S64737",
        "Tara",
    )
    assert _by_file(ctgov_documents, "NCT01174550.xml").metadata["secondary_ids"] == ["R01HL098237-01"]


def test_article_identifiers(pmc_documents: list[Document], datasets: Path) -> None:
    for document in pmc_documents:
        pmcid, pmid, doi = document.identifiers[:3]
        assert document.identifiers[3:] == (
            *study_names(document.title),
            *registered_study_names(document.text),
        )
        assert pmcid == document.doc_id and pmcid.startswith("PMC")
        assert pmid == document.metadata["pmid"] and pmid.isdigit()
        assert doi == document.metadata["doi"] and doi.startswith("10.")
    lysis = _by_file(pmc_documents, "1471-2180-11-174.nxml")
    assert lysis.identifiers == ("PMC3166277", "21810267", "10.1186/1471-2180-11-174")
    citations = [
        c for path in dataset_files("medline", datasets) for c in itertools.islice(parse_medline(path), 2000)
    ]
    for citation in citations:
        assert citation.identifiers[0] == citation.doc_id == citation.metadata["pmid"]
        expected = tuple(i for i in (citation.metadata["pmcid"], citation.metadata["doi"]) if i)
        names = dict.fromkeys((*study_names(citation.title), *registered_study_names(citation.text)))
        assert citation.identifiers[1:] == (*expected, *names)
    # a study's name from its title: "(IN-REC-SUR-E): a randomised ... trial", "the GRECCAR 2 ... trial",
    # "from the GLOBAL LEADERS Trial"; from its registration statement: "(D'SNAPP); http://clinicaltrial.gov/"
    named = {
        c.doc_id: c.identifiers[-1]
        for c in citations
        if study_names(c.title) or registered_study_names(c.text)
    }
    assert named["32687801"] == "IN-REC-SUR-E" and named["32043980"] == "GRECCAR 2"
    assert named["32450057"] == "GLOBAL LEADERS" and named["32505701"] == "D'SNAPP"
    with_pmcid = [c for c in citations if c.metadata["pmcid"]]
    assert with_pmcid and all(c.metadata["pmcid"].startswith("PMC") for c in with_pmcid)
    assert any(c.metadata["doi"] for c in citations)


def test_every_chunk_carries_the_identifiers_and_they_are_hashed(
    ctgov_documents: list[Document], pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    for document in [*ctgov_documents[:10], *pmc_documents]:
        chunks = chunk(document, "sentence", counter=token_counter)
        assert chunks and all(c.identifiers == document.identifiers for c in chunks)
        fields = chunks[0].to_dict()
        assert fields["identifiers"] == list(document.identifiers)
        json.dumps(fields)
    first = chunk(pmc_documents[0], "section", counter=token_counter)[0]
    changed = dataclasses.replace(first, identifiers=(*first.identifiers, "extra"))
    assert content_hash(changed.to_dict()) != first.content_hash == content_hash(first.to_dict())


def test_index_mapping_has_every_chunk_field() -> None:
    """The chunk mapping is strict: a chunk field it does not declare would reject the document."""
    properties = json.loads(MAPPING.read_text(encoding="utf-8"))["template"]["mappings"]["properties"]
    chunk_fields = {field.name for field in dataclasses.fields(Chunk)}
    assert chunk_fields <= set(properties)
    identifiers = properties["identifiers"]
    assert identifiers["type"] == "text" and identifiers["analyzer"] == "biomedical_identifier"
    assert identifiers["fields"]["keyword"]["type"] == "keyword"
    assert properties["near_empty"] == {"type": "boolean"}
