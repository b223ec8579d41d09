"""Evaluation test sets addressed by string id (ir_datasets style) and TREC run files.

A test set is one split of a BEIR-layout folder::

    corpus.jsonl     {"_id", "title", "text", "metadata"}
    queries.jsonl    {"_id", "text"}
    qrels/<split>.tsv  query-id <TAB> corpus-id <TAB> score, with a header row

Ids: the names in ``KNOWN_TEST_SET_IDS`` (read from the datasets root: ``$BIOHYBRID_DATASETS_DIR``, else
``shared/datasets`` beside the repository), or ``<folder>:<split>`` for any BEIR-layout folder.
Resolving an id only checks that the files exist; nothing is read until ``queries()``, ``qrels()``
or ``corpus()`` is called, so listing or configuring test sets stays cheap.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

from control_plane.datasets.locate import PROJECT_TESTSETS_DIR_ENV_VAR, dataset_folder, project_testsets_root
from control_plane.measures.metrics import Qrels, Run, rank_documents

_KNOWN_TEST_SETS: dict[str, tuple[str, str]] = {
    "nfcorpus/train": ("nfcorpus", "train"),
    "nfcorpus/dev": ("nfcorpus", "dev"),
    "nfcorpus/test": ("nfcorpus", "test"),
    "scifact/train": ("scifact", "train"),
}
# Collections the project builds from the shared records (testsets/<name>, see its README).
_PROJECT_TEST_SETS: dict[str, tuple[str, str]] = {
    "clinical/dev": ("clinical", "dev"),
    "clinical/test": ("clinical", "test"),
    "clinical-natural/dev": ("clinical-natural", "dev"),
    "clinical-natural/test": ("clinical-natural", "test"),
    "clinical-fresh/dev": ("clinical-fresh", "dev"),
    "clinical-fresh/test": ("clinical-fresh", "test"),
    "clinical-everyday/dev": ("clinical-everyday", "dev"),
    "clinical-everyday/test": ("clinical-everyday", "test"),
}
# Project collections that judge another collection's corpus instead of holding a copy: name -> the
# folder (beside it) whose corpus.jsonl they share.
_SHARED_CORPUS: dict[str, str] = {
    "clinical-natural": "clinical",
    "clinical-fresh": "clinical",
    "clinical-everyday": "clinical",
}
# How to (re)build each project collection.
_BUILD_COMMANDS: dict[str, str] = {
    "clinical": "python -m control_plane.evaluation.clinical_set --out {folder}",
    "clinical-natural": "python -m control_plane.evaluation.natural_set build --folder {folder}",
    "clinical-fresh": "python -m control_plane.evaluation.natural_set build --folder {folder}",
    "clinical-everyday": "python -m control_plane.evaluation.natural_set build --folder {folder}",
}
KNOWN_TEST_SET_IDS: tuple[str, ...] = (*_KNOWN_TEST_SETS, *_PROJECT_TEST_SETS)

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str
    # What the collection says about the query (e.g. the clinical set's intents and form).
    metadata: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    text: str
    metadata: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class TestSet:
    """One split of a BEIR-layout folder; files are read on first use, qrels once and then cached."""

    __test__: ClassVar[bool] = False  # not a pytest test class despite the name

    test_set_id: str
    folder: Path
    split: str
    # The folder whose corpus.jsonl this split uses, when not its own (a collection sharing a corpus).
    corpus_folder: Path | None = None

    @property
    def qrels_path(self) -> Path:
        return self.folder / "qrels" / f"{self.split}.tsv"

    @cached_property
    def _qrels(self) -> Qrels:
        return read_qrels(self.qrels_path)

    def qrels(self) -> Qrels:
        """query id -> doc id -> grade for this split (read once, then cached)."""
        return self._qrels

    def queries(self) -> Iterator[Query]:
        """The queries judged in this split's qrels, in file order; other splits' queries are skipped."""
        judged = self.qrels()
        path = self.folder / "queries.jsonl"
        for line_number, record in _read_jsonl(path):
            query_id = _required_str(record, "_id", path, line_number)
            if query_id in judged:
                metadata = record.get("metadata") or {}
                if not isinstance(metadata, dict):
                    raise ValueError(f"{path}:{line_number}: 'metadata' must be an object")
                yield Query(
                    query_id=query_id,
                    text=_required_str(record, "text", path, line_number),
                    metadata=metadata,
                )

    def corpus(self) -> Iterator[Document]:
        """Every document of the folder, in file order (the corpus is shared by all splits)."""
        path = (self.corpus_folder or self.folder) / "corpus.jsonl"
        for line_number, record in _read_jsonl(path):
            metadata = record.get("metadata") or {}
            if not isinstance(metadata, dict):
                raise ValueError(f"{path}:{line_number}: 'metadata' must be an object")
            yield Document(
                doc_id=_required_str(record, "_id", path, line_number),
                title=str(record.get("title") or ""),
                text=_required_str(record, "text", path, line_number),
                metadata=metadata,
            )


def load_test_set(test_set_id: str) -> TestSet:
    """Resolve a known id (``nfcorpus/dev``) or ``<folder>:<split>`` to a lazily loaded TestSet."""
    corpus_folder: Path | None = None
    if test_set_id in _PROJECT_TEST_SETS:
        name, split = _PROJECT_TEST_SETS[test_set_id]
        folder = project_testsets_root() / name
        if not folder.is_dir():
            raise FileNotFoundError(
                f"test set {test_set_id!r} needs {folder}; build it with "
                f"`{_BUILD_COMMANDS[name].format(folder=folder)}` or set {PROJECT_TESTSETS_DIR_ENV_VAR}"
            )
        if name in _SHARED_CORPUS:
            corpus_folder = project_testsets_root() / _SHARED_CORPUS[name]
    elif test_set_id in _KNOWN_TEST_SETS:
        dataset, split = _KNOWN_TEST_SETS[test_set_id]
        folder = dataset_folder(dataset)
    else:
        folder_text, has_split, split = test_set_id.rpartition(":")
        if not has_split or not folder_text or not split:
            raise ValueError(
                f"unknown test set id {test_set_id!r}; known ids: {', '.join(KNOWN_TEST_SET_IDS)}; "
                "or pass '<folder>:<split>' for a BEIR-layout folder (e.g. '/data/nfcorpus:test')"
            )
        folder = Path(folder_text).expanduser()
        if not folder.is_dir():
            raise ValueError(f"test set id {test_set_id!r}: {folder} is not a folder")
    test_set = TestSet(test_set_id=test_set_id, folder=folder, split=split, corpus_folder=corpus_folder)
    if not test_set.qrels_path.is_file():
        available = sorted(path.stem for path in (folder / "qrels").glob("*.tsv"))
        raise ValueError(
            f"test set id {test_set_id!r}: no qrels file {test_set.qrels_path}; "
            f"splits available in {folder}: {', '.join(available) or 'none'}"
        )
    return test_set


def read_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read BEIR ``query-id corpus-id score`` (header row optional) or TREC ``qid iter docid rel`` qrels."""
    qrels: dict[str, dict[str, int]] = {}
    with Path(path).open(encoding="utf-8") as lines:
        for line_number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields or (line_number == 1 and not _is_int(fields[-1])):
                continue  # blank line or header row
            if len(fields) not in (3, 4) or not _is_int(fields[-1]):
                raise ValueError(f"{path}:{line_number}: expected 'query doc grade', got {line.rstrip()!r}")
            query_id, doc_id, grade = fields[0], fields[-2], int(fields[-1])
            judgments = qrels.setdefault(query_id, {})
            if doc_id in judgments:
                raise ValueError(f"{path}:{line_number}: duplicate judgment for ({query_id}, {doc_id})")
            judgments[doc_id] = grade
    return qrels


def write_trec_run(run: Run, path: PathLike, tag: str) -> None:
    """Write ``qid Q0 docid rank score tag`` lines, queries sorted, ranks in the order metrics evaluate.

    Scores are written with ``repr`` so ``read_trec_run`` gives back exactly the same floats.
    """
    _check_token(tag, "run tag")
    with Path(path).open("w", encoding="utf-8") as out:
        for query_id in sorted(run):
            _check_token(query_id, "query id")
            scores = run[query_id]
            for rank, doc_id in enumerate(rank_documents(scores), start=1):
                _check_token(doc_id, "doc id")
                out.write(f"{query_id} Q0 {doc_id} {rank} {float(scores[doc_id])!r} {tag}\n")


def read_trec_run(path: PathLike) -> dict[str, dict[str, float]]:
    """Read a six-column TREC run file into query id -> doc id -> score (stated ranks are ignored)."""
    run: dict[str, dict[str, float]] = {}
    with Path(path).open(encoding="utf-8") as lines:
        for line_number, line in enumerate(lines, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != 6:
                raise ValueError(
                    f"{path}:{line_number}: expected 'qid Q0 docid rank score tag', got {line.rstrip()!r}"
                )
            query_id, _, doc_id, _, score_text, _ = fields
            try:
                score = float(score_text)
            except ValueError:
                raise ValueError(f"{path}:{line_number}: score {score_text!r} is not a number") from None
            scores = run.setdefault(query_id, {})
            if doc_id in scores:
                raise ValueError(f"{path}:{line_number}: document {doc_id} listed twice for query {query_id}")
            scores[doc_id] = score
    return run


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    with path.open(encoding="utf-8") as lines:
        for line_number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ValueError(f"{path}:{line_number}: expected a JSON object")
            yield line_number, record


def _required_str(record: Mapping[str, Any], key: str, path: Path, line_number: int) -> str:
    value = record.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{path}:{line_number}: missing or non-string field {key!r}")
    return value


def _is_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


def _check_token(value: str, what: str) -> None:
    """TREC files are whitespace-separated, so an empty value or one with spaces would corrupt them."""
    if not value or any(character.isspace() for character in value):
        raise ValueError(f"{what} {value!r} must be non-empty and contain no whitespace")


def is_test_split(test_set_id: str) -> bool:
    """Whether an id names a test split (``nfcorpus/test``, ``<folder>:test``): for quality reports only,
    never for choosing settings or timing queries."""
    return "/test" in test_set_id or test_set_id.endswith(":test")
