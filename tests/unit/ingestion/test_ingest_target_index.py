"""What an ingest is refused for before anything is written (issue 50 item 4): a target index no chunk
template covers (naming the pattern), a reserved or system index, an unknown strategy, a source that
is not there. The patterns come from the templates as rendered from the settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.config.settings import Settings
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR
from control_plane.errors import BadRequestError
from control_plane.ingestion.submission import (
    IngestRefusedError,
    check_submission,
    check_target_index,
    index_problem,
    index_templates,
    matches,
    reserved_indices,
)

CHUNKS = ("chunks-*",)
RESERVED = ("jobs", "eval-runs*", "jobs*")


@pytest.mark.parametrize(
    ("pattern", "index", "expected"),
    [
        ("chunks-*", "chunks-demo", True),
        ("chunks-*", "chunks-", True),
        ("chunks-*", "chunks", False),
        ("chunks-*", "xchunks-demo", False),
        ("jobs*", "jobs", True),
        ("jobs*", "jobs-t1-x", True),
        ("a.b-*", "axb-1", False),  # '.' is literal, not a regular-expression wildcard
    ],
)
def test_a_template_pattern_is_a_simple_match(pattern: str, index: str, expected: bool) -> None:
    assert matches(pattern, index) is expected


@pytest.mark.parametrize("index", ["chunks-demo", "chunks-default", "chunks-acme-pmc", "chunks-t1.v2"])
def test_an_index_the_chunk_template_covers_is_accepted(index: str) -> None:
    assert index_problem(index, CHUNKS, RESERVED) is None


def test_an_index_no_template_covers_is_refused_naming_the_pattern() -> None:
    assert index_problem("probe-bare", CHUNKS, RESERVED) == (
        "index 'probe-bare' matches no template of this project (chunks-*), so it would get no chunk "
        "mappings (the embedding a plain float, not a knn_vector: every hybrid query on it fails): name it "
        "chunks-<something>"
    )


@pytest.mark.parametrize("index", ["jobs", "jobs-archive", "eval-runs", "eval-runs-2026"])
def test_the_projects_record_indices_are_reserved(index: str) -> None:
    assert index_problem(index, CHUNKS, RESERVED) == (
        f"index {index!r} is reserved for the project's own records (jobs, eval-runs*, jobs*), not "
        "chunks: name it chunks-<something>"
    )


def test_a_reserved_name_is_refused_even_where_the_chunk_pattern_covers_it() -> None:
    problem = index_problem("chunks-ledger", CHUNKS, ("chunks-ledger",))
    assert problem is not None and problem.startswith("index 'chunks-ledger' is reserved")


@pytest.mark.parametrize("index", [".kibana", ".opendistro-job-scheduler-lock", ".plugins-ml-model"])
def test_system_indices_are_refused(index: str) -> None:
    assert index_problem(index, CHUNKS, RESERVED) == (
        f"index {index!r} is a system index (its name starts with '.'): name it chunks-<something>"
    )


@pytest.mark.parametrize("index", ["chunks-*", "chunks-a,chunks-b", "Chunks-Demo", "_all", "chunks demo"])
def test_what_is_not_one_index_name_is_refused(index: str) -> None:
    problem = index_problem(index, CHUNKS, RESERVED)
    assert problem is not None and "is not one index name" in problem


def test_the_patterns_come_from_the_rendered_templates() -> None:
    settings = Settings()
    assert index_templates(settings) == (("chunks-*",), ("eval-runs*", "jobs*"))
    assert reserved_indices(settings, also=["eval-runs"]) == ("jobs", "eval-runs", "eval-runs*", "jobs*")
    papers = Settings.model_validate({"index": {"prefix": "papers"}, "ledger": {"index": "ledger-records"}})
    assert index_templates(papers)[0] == ("papers-*",)
    check_target_index(papers, "papers-2026")
    with pytest.raises(
        IngestRefusedError,
        match=r"^index 'chunks-demo' matches no template of this project "
        r"\(papers-\*\).*name it papers-<something>$",
    ):
        check_target_index(papers, "chunks-demo")
    with pytest.raises(IngestRefusedError, match=r"^index 'ledger-records' is reserved"):
        check_target_index(papers, "ledger-records")


def test_a_refusal_is_a_bad_request() -> None:
    with pytest.raises(BadRequestError) as refused:
        check_target_index(Settings(), "probe-bare")
    assert refused.value.http_status == 400


def test_a_submission_is_refused_for_its_strategy_and_its_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings()
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "a", "title": "A", "text": "alpha"}\n', encoding="utf-8")
    check_submission(settings, "chunks-mine", [str(corpus)], "sentence")

    with pytest.raises(IngestRefusedError) as strategy:
        check_submission(settings, "chunks-mine", [str(corpus)], "paragraphs")
    assert str(strategy.value) == (
        "unknown chunking strategy 'paragraphs'; known strategies: section, paragraph, sentence, "
        "sliding_window, haystack-sentence, haystack-word, haystack-passage"
    )

    missing = tmp_path / "absent.jsonl"
    with pytest.raises(IngestRefusedError) as absent:
        check_submission(settings, "chunks-mine", [str(corpus), str(missing), "pubmedqa"], "sentence")
    assert str(absent.value) == (
        f"no such dataset, file or folder: {missing}, pubmedqa (dataset ids: pmc, ctgov, medline, "
        "nfcorpus, scifact; or a path that exists)"
    )
    long_path = "/x" * 2500  # issue 73: was ENAMETOOLONG, a 500; now refused with the path cut in the message
    with pytest.raises(
        IngestRefusedError, match=r"no such dataset, file or folder: (/x){100}… \(5000 characters\)"
    ):
        check_submission(settings, "chunks-mine", [long_path], "sentence")

    monkeypatch.setenv(DATASETS_DIR_ENV_VAR, str(tmp_path / "nowhere"))
    with pytest.raises(IngestRefusedError, match=f"^{DATASETS_DIR_ENV_VAR}=.* is not a folder"):
        check_submission(settings, "chunks-mine", ["pmc"], "sentence")

    # The index is checked first: a bad index is what is named, whatever else is wrong.
    with pytest.raises(IngestRefusedError, match=r"^index 'jobs' is reserved"):
        check_submission(settings, "jobs", [str(missing)], "paragraphs")
