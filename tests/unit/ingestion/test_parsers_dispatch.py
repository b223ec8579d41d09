from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError
from control_plane.ingestion.parsers import (
    FORMATS,
    dataset_files,
    iter_beir,
    iter_ctgov,
    iter_documents,
    iter_jats,
    iter_medline,
    parse_documents,
    parser_for,
    unknown_sources,
)


def test_dataset_ids_map_to_their_files(datasets: Path) -> None:
    counts = {
        name: len(dataset_files(name, datasets))
        for name in ("pmc", "ctgov", "medline", "nfcorpus", "scifact")
    }
    assert counts == {"pmc": 8, "ctgov": 76, "medline": 2, "nfcorpus": 1, "scifact": 1}
    with pytest.raises(ValueError, match="pmc, ctgov, medline, nfcorpus, scifact"):
        dataset_files("trec-covid", datasets)


def test_parser_is_chosen_by_suffix_or_root_element(datasets: Path) -> None:
    assert parser_for(datasets / "pmc" / "mds526.nxml") is iter_jats
    assert parser_for(datasets / "clinicaltrials" / "xml" / "NCT00001177.xml") is iter_ctgov
    assert parser_for(datasets / "clinicaltrials" / "json" / "NCT00465816.json") is iter_ctgov
    assert parser_for(datasets / "medline" / "pubmed21n1298.xml.gz") is iter_medline
    assert parser_for(datasets / "scifact" / "corpus.jsonl") is iter_beir


def test_iter_documents_accepts_dataset_ids_files_and_folders(datasets: Path) -> None:
    by_id = [d.doc_id for d in parse_documents("pmc")]
    by_folder = [d.doc_id for d in parse_documents(datasets / "pmc")]
    by_files = [d.doc_id for d in parse_documents(sorted((datasets / "pmc").glob("*.nxml")))]
    assert by_id == by_folder == by_files
    assert len(by_id) == 8


def test_unknown_files_are_errors_not_crashes(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    (tmp_path / "other.xml").write_text("<svg/>", encoding="utf-8")
    (tmp_path / "good.nxml").write_text(
        "<article><front><article-meta><title-group><article-title>T</article-title></title-group>"
        "</article-meta></front></article>",
        encoding="utf-8",
    )
    items = list(iter_documents(tmp_path))
    assert [type(i) for i in items] == [Document, ParseError, ParseError]
    assert {e.path.name for e in items if isinstance(e, ParseError)} == {"notes.txt", "other.xml"}
    (missing,) = list(iter_documents(tmp_path / "absent.nxml"))
    assert isinstance(missing, ParseError) and missing.reason == "no such file"


def test_unknown_sources_are_those_neither_a_dataset_nor_a_path(tmp_path: Path) -> None:
    (tmp_path / "here.nxml").write_text("<article/>", encoding="utf-8")
    sources = ["pmc", str(tmp_path), str(tmp_path / "here.nxml"), str(tmp_path / "absent.nxml"), "pmcc"]
    assert unknown_sources(sources) == [str(tmp_path / "absent.nxml"), "pmcc"]


def test_a_name_the_system_will_not_look_up_is_unknown_not_an_error(tmp_path: Path) -> None:
    # issue 73: a 5,000-character path raised ENAMETOOLONG from Path.exists(), a 500 on the control API
    too_long, too_long_part, nul = "/x" * 2500, str(tmp_path / ("a" * 300)), "here\x00there"
    assert unknown_sources([too_long, too_long_part, nul]) == [too_long, too_long_part, nul]


def test_each_format_row_chooses_its_parser_and_a_file_fitting_none_is_told_every_suffix(
    tmp_path: Path,
) -> None:
    for source_format in FORMATS:
        for suffix in source_format.suffixes:
            path = tmp_path / f"record{suffix}"
            path.write_text("", encoding="utf-8")
            assert parser_for(path) is source_format.parse, source_format.name
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    (error,) = list(iter_documents(tmp_path / "notes.txt"))
    assert isinstance(error, ParseError)
    for suffix in (".nxml", ".jsonl", ".json", ".xml", ".xml.gz", ".pdf"):
        assert suffix in error.reason
