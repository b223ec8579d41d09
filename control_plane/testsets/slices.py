"""Fixed, seeded slices of a BEIR test set: a few judged queries, every document judged for them, and
sampled distractors, written as a BEIR-layout folder (so ``<folder>:<split>`` is a test set id).

Why: encoding a whole corpus takes 10-15 minutes on two CPU cores, too long for every test session. A
slice keeps the parts that make quality checks meaningful (real queries, all their judgments, documents
that compete with the relevant ones) at a size a session can encode. Figures on a slice are regression
anchors and sanity gates, never comparable to full-corpus figures (the corpus is smaller and denser in
relevant documents); full-corpus evaluation stays in `biohybrid evaluate` and the committed reports.

The draw is deterministic: queries are sampled with ``random.Random(seed)`` from the split's judged
queries in sorted id order (only those with at most ``max_judged`` judged documents, which keeps the
slice small), distractors from the remaining documents in corpus order.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from control_plane.measures.metrics import Qrels
from control_plane.testsets.catalog import load_test_set


@dataclass(frozen=True)
class SliceSpec:
    name: str
    # (test set id, number of queries), e.g. (("nfcorpus/dev", 50), ("nfcorpus/test", 50)); every test
    # set must come from the same BEIR folder.
    draws: tuple[tuple[str, int], ...]
    distractors: int
    max_judged: int = 20
    seed: int = 13


@dataclass(frozen=True)
class BuiltSlice:
    spec: SliceSpec
    folder: Path
    documents: int
    queries: dict[str, int]  # split -> queries drawn

    def test_set_id(self, split: str) -> str:
        return f"{self.folder}:{split}"


def draw_queries(qrels: Qrels, count: int, max_judged: int, seed: int) -> list[str]:
    """``count`` query ids with at most ``max_judged`` judged documents, drawn by ``seed``, sorted."""
    eligible = sorted(q for q, judged in qrels.items() if 0 < len(judged) <= max_judged)
    if count > len(eligible):
        raise ValueError(f"asked for {count} queries, only {len(eligible)} have 1..{max_judged} judgments")
    return sorted(random.Random(seed).sample(eligible, count))


def build_slice(spec: SliceSpec, parent: Path) -> BuiltSlice:
    """Write ``parent/<name>/`` (corpus.jsonl, queries.jsonl, qrels/<split>.tsv); files are rewritten
    only when their content changes, so a rebuilt slice is byte-identical and cheap."""
    folder = parent / spec.name
    test_sets = [(load_test_set(test_set_id), count) for test_set_id, count in spec.draws]
    if len({ts.folder.resolve() for ts, _ in test_sets}) != 1:
        raise ValueError(f"slice {spec.name!r}: every draw must come from one BEIR folder")
    judged: set[str] = set()
    qrels_by_split: dict[str, Qrels] = {}
    for test_set, count in test_sets:
        all_qrels = test_set.qrels()
        chosen = draw_queries(all_qrels, count, spec.max_judged, spec.seed)
        qrels_by_split[test_set.split] = {q: all_qrels[q] for q in chosen}
        judged.update(d for q in chosen for d in all_qrels[q])
    source = test_sets[0][0]
    others = sorted({d.doc_id for d in source.corpus()} - judged)
    if spec.distractors > len(others):
        raise ValueError(
            f"slice {spec.name!r}: {spec.distractors} distractors asked, {len(others)} available"
        )
    keep = judged | set(random.Random(spec.seed).sample(others, spec.distractors))
    corpus = [
        json.dumps({"_id": d.doc_id, "title": d.title, "text": d.text, "metadata": dict(d.metadata)})
        for d in source.corpus()
        if d.doc_id in keep
    ]
    wanted_queries = {q for per_split in qrels_by_split.values() for q in per_split}
    queries = [
        json.dumps({"_id": q.query_id, "text": q.text})
        for test_set, _ in test_sets
        for q in test_set.queries()
        if q.query_id in wanted_queries
    ]
    _write_if_changed(folder / "corpus.jsonl", "".join(line + "\n" for line in corpus))
    _write_if_changed(folder / "queries.jsonl", "".join(line + "\n" for line in dict.fromkeys(queries)))
    for split, qrels in qrels_by_split.items():
        rows = ["query-id\tcorpus-id\tscore"] + [
            f"{q}\t{d}\t{grade}" for q in sorted(qrels) for d, grade in sorted(qrels[q].items())
        ]
        _write_if_changed(folder / "qrels" / f"{split}.tsv", "\n".join(rows) + "\n")
    return BuiltSlice(spec, folder, len(corpus), {split: len(q) for split, q in qrels_by_split.items()})


def _write_if_changed(path: Path, text: str) -> None:
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
