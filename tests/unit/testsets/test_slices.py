"""Seeded BEIR slices: deterministic, complete in judgments, and sized as asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from control_plane.testsets.catalog import load_test_set
from control_plane.testsets.slices import SliceSpec, build_slice, draw_queries


def test_draw_queries_takes_only_small_judged_sets_and_is_seeded() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"a": 1, "b": 2, "c": 1}, "q3": {"b": 1}, "q4": {}, "q5": {"d": 2}}
    drawn = draw_queries(qrels, 2, max_judged=2, seed=7)
    assert set(drawn) <= {"q1", "q3", "q5"} and drawn == sorted(drawn)
    assert drawn == draw_queries(qrels, 2, max_judged=2, seed=7)
    assert draw_queries(qrels, 3, max_judged=2, seed=1) == ["q1", "q3", "q5"]
    with pytest.raises(ValueError, match=r"only 3 have 1\.\.2 judgments"):
        draw_queries(qrels, 4, max_judged=2, seed=7)


def test_a_slice_holds_every_judged_document_and_the_distractors(tmp_path: Path) -> None:
    spec = SliceSpec("s", (("scifact/train", 12),), distractors=30)
    built = build_slice(spec, tmp_path)
    sliced = load_test_set(built.test_set_id("train"))
    qrels = sliced.qrels()
    full = load_test_set("scifact/train").qrels()
    assert len(qrels) == built.queries["train"] == 12
    assert all(qrels[q] == full[q] for q in qrels)  # every judgment of a drawn query, unchanged
    corpus = {d.doc_id for d in sliced.corpus()}
    judged = {d for judged in qrels.values() for d in judged}
    assert judged <= corpus and len(corpus) == len(judged) + 30 == built.documents
    assert {q.query_id for q in sliced.queries()} == set(qrels)


def test_a_rebuilt_slice_is_byte_identical_and_untouched(tmp_path: Path) -> None:
    spec = SliceSpec("s", (("nfcorpus/dev", 3), ("nfcorpus/test", 3)), distractors=10, seed=5)
    built = build_slice(spec, tmp_path)
    files = sorted(built.folder.rglob("*.*"))
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files}
    build_slice(spec, tmp_path)
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in files} == before
    assert {p.name for p in files} == {"corpus.jsonl", "queries.jsonl", "dev.tsv", "test.tsv"}
    first = json.loads((built.folder / "corpus.jsonl").read_text().splitlines()[0])
    assert set(first) == {"_id", "title", "text", "metadata"}


def test_draws_from_two_folders_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one BEIR folder"):
        build_slice(SliceSpec("s", (("nfcorpus/dev", 1), ("scifact/train", 1)), distractors=0), tmp_path)
