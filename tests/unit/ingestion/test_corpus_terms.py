"""The corpus as corpus cues read it, and the packaged cues file: rebuilt from the corpus it names, it
is what the repository holds (a stale file fails here, with the command that rebuilds it)."""

from __future__ import annotations

from pathlib import Path

from control_plane.clinical.corpus_cues import load_corpus_cues
from control_plane.ingestion.corpus_terms import (
    DEFAULT_CUES_FILE,
    build_corpus_cues,
    event_terms,
    headings,
    topic_texts,
)
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers import parse_documents
from control_plane.locations import REPOSITORY_ROOT


def _trial(documents: list[Document], nct_id: str) -> Document:
    return next(document for document in documents if document.doc_id == nct_id)


def test_a_trials_event_terms_and_topics(ctgov_documents: list[Document]) -> None:
    trial = _trial(ctgov_documents, "NCT02552212")  # certolizumab in axial spondyloarthritis
    terms = event_terms(trial)
    assert "Nasopharyngitis" in terms
    assert len(terms) > 10
    topics = list(topic_texts(trial))
    assert topics[0] == trial.title
    assert any("Spondyloarthritis" in text for text in topics)


def test_a_citations_headings_say_which_conditions_were_caused(datasets: Path) -> None:
    citation = next(
        document
        for document in parse_documents([datasets / "medline" / "pubmed21n1298.xml.gz"])
        if any(heading.caused for heading in headings(document))
    )
    marked = list(headings(citation))
    assert any(heading.caused for heading in marked)
    assert len(marked) == len(citation.metadata["mesh_headings"])


def test_the_packaged_cues_file_is_what_its_corpus_builds(datasets: Path) -> None:
    packaged = load_corpus_cues(DEFAULT_CUES_FILE)
    assert packaged.sources == ("ctgov", "pmc", "testsets/clinical/medline-subset.xml.gz")
    assert packaged.heading_sources == ("medline",)
    rebuilt = build_corpus_cues(
        [
            datasets / "clinicaltrials",
            datasets / "pmc",
            REPOSITORY_ROOT / "testsets/clinical/medline-subset.xml.gz",
        ],
        [datasets / "medline"],
        packaged.selection,
    )
    assert rebuilt.intents == packaged.intents, (
        "control_plane/config/corpus_cues.json is stale: rebuild it with `biohybrid intents cues ctgov pmc "
        "testsets/clinical/medline-subset.xml.gz --mesh medline` (from the repository root)"
    )
    assert rebuilt.counts == packaged.counts
