"""Test sets by id (named and folder form), lazy loading, and TREC run files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from control_plane.datasets import locate
from control_plane.datasets.locate import DATASETS_DIR_ENV_VAR as DATASETS_DIR_ENV
from control_plane.measures.metrics import Run
from control_plane.testsets.catalog import (
    KNOWN_TEST_SET_IDS,
    Document,
    Query,
    TestSet,
    load_test_set,
    read_qrels,
    read_trec_run,
    write_trec_run,
)

# Figures from shared/datasets/README.md, checked against the files with
# `tail -n +2 qrels/<split>.tsv | cut -f1 | sort -u | wc -l` (queries) and `wc -l` minus the header (rows).
README_SPLITS = {
    "nfcorpus/train": (2590, 110575),
    "nfcorpus/dev": (324, 11385),
    "nfcorpus/test": (323, 12334),
    "scifact/train": (809, 919),
}


def _write_beir_folder(folder: Path, splits: dict[str, str]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    documents = [
        {"_id": "d1", "title": "Vitamin D", "text": "Vitamin D and bone health.", "metadata": {"url": "u1"}},
        {"_id": "d2", "text": "Statins and breast cancer."},  # no title, no metadata
    ]
    queries = [{"_id": "q1", "text": "bone health"}, {"_id": "q2", "text": "statins"}]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), encoding="utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8")
    for split, body in splits.items():
        (folder / "qrels" / f"{split}.tsv").write_text(
            "query-id\tcorpus-id\tscore\n" + body, encoding="utf-8"
        )
    return folder


# built by the project (testsets/clinical/README.md, testsets/clinical-natural/README.md,
# testsets/clinical-fresh/README.md, testsets/clinical-everyday/README.md)
PROJECT_SPLITS = {
    "clinical/dev",
    "clinical/test",
    "clinical-natural/dev",
    "clinical-natural/test",
    "clinical-fresh/dev",
    "clinical-fresh/test",
    "clinical-everyday/dev",
    "clinical-everyday/test",
}


def test_known_ids() -> None:
    assert set(KNOWN_TEST_SET_IDS) == set(README_SPLITS) | PROJECT_SPLITS


@pytest.mark.parametrize(("test_set_id", "figures"), README_SPLITS.items())
def test_split_sizes_match_the_readme(test_set_id: str, figures: tuple[int, int]) -> None:
    query_count, judgment_count = figures
    test_set = load_test_set(test_set_id)
    qrels = test_set.qrels()
    assert len(qrels) == query_count
    assert sum(len(judgments) for judgments in qrels.values()) == judgment_count
    queries = list(test_set.queries())
    assert len(queries) == query_count  # every judged query has its text, and only judged ones are yielded
    assert {query.query_id for query in queries} == set(qrels)


def test_nfcorpus_grades_and_corpus() -> None:
    test_set = load_test_set("nfcorpus/dev")
    assert {grade for judgments in test_set.qrels().values() for grade in judgments.values()} == {1, 2}
    documents = list(test_set.corpus())
    assert len(documents) == 3633  # README: 3,633 docs
    first = documents[0]
    assert isinstance(first, Document)
    assert first.doc_id == "MED-10"
    assert first.title.startswith("Statin Use and Breast Cancer Survival")
    assert str(first.metadata["url"]).startswith("http")


def test_splits_do_not_share_queries() -> None:
    dev = {query.query_id for query in load_test_set("nfcorpus/dev").queries()}
    test = {query.query_id for query in load_test_set("nfcorpus/test").queries()}
    assert dev.isdisjoint(test)


def test_env_var_overrides_datasets_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_beir_folder(tmp_path / "nfcorpus", {"dev": "q2\td2\t1\n"})
    monkeypatch.setenv(DATASETS_DIR_ENV, str(tmp_path))
    test_set = load_test_set("nfcorpus/dev")
    assert test_set.folder == tmp_path / "nfcorpus"
    assert list(test_set.queries()) == [Query(query_id="q2", text="statins")]


def test_a_dataset_found_nowhere_names_both_ways_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DATASETS_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(locate, "REPOSITORY_DATASETS", tmp_path / "repository")
    monkeypatch.setattr(locate, "SHARED_DATASETS", tmp_path / "shared")
    with pytest.raises(FileNotFoundError, match=f"biohybrid datasets fetch scifact.*{DATASETS_DIR_ENV}"):
        load_test_set("scifact/train")


def test_folder_path_form(tmp_path: Path) -> None:
    folder = _write_beir_folder(tmp_path / "mini", {"test": "q1\td1\t2\nq1\td2\t0\n"})
    test_set = load_test_set(f"{folder}:test")
    assert isinstance(test_set, TestSet)
    assert (test_set.folder, test_set.split) == (folder, "test")
    assert test_set.qrels() == {"q1": {"d1": 2, "d2": 0}}
    assert list(test_set.queries()) == [Query(query_id="q1", text="bone health")]
    assert list(test_set.corpus()) == [
        Document(doc_id="d1", title="Vitamin D", text="Vitamin D and bone health.", metadata={"url": "u1"}),
        Document(doc_id="d2", title="", text="Statins and breast cancer.", metadata={}),
    ]


def test_folder_path_form_reads_the_real_nfcorpus_like_its_named_id() -> None:
    named = load_test_set("nfcorpus/test")
    by_folder = load_test_set(f"{named.folder}:test")
    assert by_folder.qrels() == named.qrels()


def test_loading_is_lazy(tmp_path: Path) -> None:
    folder = _write_beir_folder(tmp_path / "lazy", {"dev": "q1\td1\t1\n"})
    (folder / "queries.jsonl").unlink()
    (folder / "corpus.jsonl").unlink()
    test_set = load_test_set(f"{folder}:dev")  # resolving reads nothing, so missing files do not matter yet
    queries = test_set.queries()  # a generator: still nothing read
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "late"}) + "\n", encoding="utf-8")
    assert list(queries) == [Query(query_id="q1", text="late")]
    with pytest.raises(FileNotFoundError):
        next(test_set.corpus())


def test_qrels_are_read_once_then_cached(tmp_path: Path) -> None:
    folder = _write_beir_folder(tmp_path / "cache", {"dev": "q1\td1\t1\n"})
    test_set = load_test_set(f"{folder}:dev")
    first = test_set.qrels()
    (folder / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq2\td2\t1\n", encoding="utf-8")
    assert test_set.qrels() is first


def test_unknown_id_lists_known_ids_and_the_folder_form() -> None:
    with pytest.raises(ValueError, match="unknown test set id 'nfcorpus/validation'") as error:
        load_test_set("nfcorpus/validation")
    message = str(error.value)
    assert all(test_set_id in message for test_set_id in KNOWN_TEST_SET_IDS)
    assert "<folder>:<split>" in message


def test_folder_form_with_missing_split_lists_available_splits(tmp_path: Path) -> None:
    folder = _write_beir_folder(tmp_path / "splits", {"train": "q1\td1\t1\n", "dev": "q2\td2\t1\n"})
    with pytest.raises(ValueError, match=r"splits available in .*: dev, train"):
        load_test_set(f"{folder}:test")


def test_folder_form_with_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a folder"):
        load_test_set(f"{tmp_path / 'absent'}:test")


def test_read_qrels_accepts_trec_four_column_format(tmp_path: Path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 2\nq1 0 d2 0\nq2 0 d3 1\n", encoding="utf-8")
    assert read_qrels(path) == {"q1": {"d1": 2, "d2": 0}, "q2": {"d3": 1}}


def test_read_qrels_rejects_duplicates_and_bad_rows(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":3: duplicate judgment"):
        read_qrels(path)
    path.write_text("query-id\tcorpus-id\tscore\nq1\td1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":2: expected"):
        read_qrels(path)


def test_trec_run_round_trip(tmp_path: Path) -> None:
    run: Run = {
        "q2": {"d1": 0.1 + 0.2, "d2": 1e-17, "d3": -3.5},
        "q1": {"a": 1.0, "b": 1.0, "c": 2.0},  # a and b tie
    }
    path = tmp_path / "run.trec"
    write_trec_run(run, path, tag="tfidf")
    assert read_trec_run(path) == run  # scores come back bit-for-bit
    # queries sorted; within a query score descending, ties by doc id descending (b before a)
    assert path.read_text(encoding="utf-8").splitlines()[:3] == [
        "q1 Q0 c 1 2.0 tfidf",
        "q1 Q0 b 2 1.0 tfidf",
        "q1 Q0 a 3 1.0 tfidf",
    ]


def test_write_trec_run_rejects_whitespace_in_fields(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="run tag"):
        write_trec_run({"q": {"d": 1.0}}, tmp_path / "run", tag="my run")
    with pytest.raises(ValueError, match="doc id"):
        write_trec_run({"q": {"d 1": 1.0}}, tmp_path / "run", tag="tag")


def test_read_trec_run_rejects_malformed_lines(tmp_path: Path) -> None:
    path = tmp_path / "run"
    path.write_text("q1 Q0 d1 1 0.5\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r":1: expected 'qid Q0 docid rank score tag'"):
        read_trec_run(path)
    path.write_text("q1 Q0 d1 1 high tag\n", encoding="utf-8")
    with pytest.raises(ValueError, match="is not a number"):
        read_trec_run(path)
    path.write_text("q1 Q0 d1 1 0.5 tag\nq1 Q0 d1 2 0.4 tag\n", encoding="utf-8")
    with pytest.raises(ValueError, match="listed twice"):
        read_trec_run(path)
