"""SPLADE-tiny against a fine-tuned checkpoint, by exact sparse search over the vectors the index would
hold, on sets no run trained on.

``python -m model_artifacts.sparse_tuning.evaluate --model .cache/sparse-tuning/run1/final --out report.md``

The sets are the dense tuning's (``model_artifacts.encoder_tuning.evaluate``): nfcorpus/dev over every
chunk of chunks-nfcorpus (``--sets dev`` stops there: the set checkpoints are chosen on), the SciFact
claims training held out, and held-out MEDLINE title → abstract pairs. Vectors are cut as the service cuts
them for the index (the manifest's top_k and min_weight), scores are the dot product rank_features
computes, documents are scored by their best chunk. Two query sides per model: the model's own query
vector, and **doc-only** expansion (the query's word pieces at weight 1, no model at query time, the
inference-free mode) over the same passage vectors. Passage vectors are cached per model file and set in
``.cache/sparse-tuning/vectors/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from control_plane.locations import REPOSITORY_ROOT
from control_plane.measures.metrics import per_query
from control_plane.models.sparse import vocabulary
from control_plane.models.tokenization import BatchTokenizer
from control_plane.reports.markdown import markdown_table
from model_artifacts.encoder_tuning.evaluate import (
    DEPTH,
    EvalSet,
    document_run,
    eval_sets,
    paired_cells,
    write_report,
)
from model_artifacts.reranker.data import DEFAULT_ROOT
from model_artifacts.sparse_tuning.model import TOKENIZER_FILE, base_folder, encode, index_cut, load_splade
from model_artifacts.sparse_tuning.vectors import SparseRows, dot_scores

PROG = "python -m model_artifacts.sparse_tuning.evaluate"
METRICS = ("ndcg@10", "recall@10", "recall@100")
VECTORS = REPOSITORY_ROOT / ".cache" / "sparse-tuning" / "vectors"
MAX_LENGTH = 256
"""The manifest's max_length: the service encodes chunks and queries at most this long."""
Results = dict[str, dict[str, dict[str, float]]]


def doc_only_queries(tokenizer: BatchTokenizer, texts: Sequence[str], width: int) -> SparseRows:
    """Each query as its allowed word pieces at weight 1 (inference-free sparse retrieval)."""
    _, keep = vocabulary(tokenizer.tokenizer)
    rows = [sorted({i for i in e.ids if i < width and keep[i]}) for e in tokenizer.encode(texts)]
    return SparseRows(
        indptr=np.concatenate([[0], np.cumsum([len(r) for r in rows], dtype=np.int64)]).astype(np.int64),
        ids=np.array([i for r in rows for i in r], dtype=np.int32),
        values=np.ones(sum(len(r) for r in rows), dtype=np.float32),
        width=width,
    )


def _model_digest(folder: Path) -> str:
    return hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()[:12]


def passage_vectors(
    model: Any, digest: str, tokenizer: BatchTokenizer, item: EvalSet, label: str
) -> SparseRows:
    """The set's passage vectors under ``model``, from the cache when this model file encoded them
    with the same length and index cut."""
    cut = index_cut()
    recipe = f"{MAX_LENGTH} {cut.top_k} {cut.min_weight}\n" + "\n".join(item.passages)
    key = hashlib.sha256(recipe.encode()).hexdigest()[:12]
    path = VECTORS / f"{digest}-{key}.npz"
    if path.is_file():
        return SparseRows.load(path)
    vectors = encode(model, tokenizer, item.passages, progress=f"{label}: {item.name}")
    path.parent.mkdir(parents=True, exist_ok=True)
    vectors.save(path)
    return vectors


def measure(folder: Path, sets: Sequence[EvalSet], label: str) -> tuple[Results, Results, dict[str, Any]]:
    """(model queries, doc-only queries): set name → query id → metric → value; and sparsity figures."""
    model = load_splade(folder)
    digest = _model_digest(folder)
    tokenizer = BatchTokenizer.from_file(folder / TOKENIZER_FILE, MAX_LENGTH)
    own: Results = {}
    doc_only: Results = {}
    sparsity: dict[str, Any] = {}
    for item in sets:
        query_ids = list(item.queries)
        texts = [item.queries[i] for i in query_ids]
        passages = passage_vectors(model, digest, tokenizer, item, label)
        q = encode(model, tokenizer, texts)
        plain = doc_only_queries(tokenizer, texts, passages.width)
        for results, queries in ((own, q), (doc_only, plain)):
            run = document_run(dot_scores(queries, passages), query_ids, item.passage_doc_ids, DEPTH)
            results[item.name] = per_query(item.qrels, run, METRICS)
        sparsity[item.name] = {
            "terms_per_passage": round(passages.entries / passages.rows, 1),
            "terms_per_query": round(q.entries / q.rows, 1),
            "postings": passages.entries,
        }
    return own, doc_only, sparsity


def comparison_rows(label: str, base: Results, tuned: Results) -> list[list[str]]:
    rows = []
    for name, base_queries in base.items():
        for metric in METRICS:
            b = {q: v[metric] for q, v in base_queries.items()}
            t = {q: v[metric] for q, v in tuned[name].items()}
            rows.append([name, label, metric, *paired_cells(b, t)])
    return rows


def report(measured: Mapping[str, Any], header: str) -> str:
    rows = comparison_rows("model", measured["base"], measured["tuned"])
    rows += comparison_rows("doc-only", measured["base_doc_only"], measured["tuned_doc_only"])
    table = markdown_table(
        ["set", "query side", "metric", "base splade-tiny", "tuned", "Δ", "p", "queries"], rows, "lllrrrrr"
    )
    sparsity_rows = [
        [name, model, str(s["terms_per_passage"]), str(s["terms_per_query"]), f"{s['postings']:,}"]
        for model in ("base", "tuned")
        for name, s in measured[f"{model}_sparsity"].items()
    ]
    sparsity = markdown_table(
        ["set", "model", "terms per passage", "terms per query", "postings"], sparsity_rows, "llrrr"
    )
    return (
        f"{header}\n\n" + "\n".join(table) + "\n\nΔ and p: paired randomization test per query "
        "(10,000 permutations). doc-only: the query's word pieces at weight 1 against the same passage "
        "vectors.\n\n## Sparsity (vectors cut as the index stores them)\n\n" + "\n".join(sparsity) + "\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", type=Path, required=True, help="a run's final/ or step-NNNNNN/ folder")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (results JSON beside it)")
    parser.add_argument("--sets", choices=("dev", "all"), default="all", help="dev: nfcorpus/dev only")
    parser.add_argument("--medline-held-out", type=int, default=1000, help="held-out MEDLINE pairs")
    parser.add_argument("--data-root", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    train = json.loads((args.model.parent / "train.json").read_text(encoding="utf-8"))
    sets = eval_sets(train["settings"]["data_config"], args.data_root, args.medline_held_out)
    if args.sets == "dev":
        sets = sets[:1]
    started = time.monotonic()
    measured: dict[str, Any] = {}
    for label, folder in (("base", base_folder()), ("tuned", args.model)):
        own, doc_only, sparsity = measure(folder, sets, label)
        measured |= {label: own, f"{label}_doc_only": doc_only, f"{label}_sparsity": sparsity}
    header = (
        f"# splade-tiny fine-tuned ({args.model.parent.name}/{args.model.name}) against its start\n\n"
        f"- Command: `{PROG} {' '.join(sys.argv[1:] if argv is None else argv)}`\n"
        f"- Trained by: `{train['command']}` (settings in {args.model.parent / 'train.json'})\n"
        f"- Encoding and search took {time.monotonic() - started:.0f} s (passage vectors cached per model)."
    )
    write_report(args.out, report(measured, header), measured)
    return 0


if __name__ == "__main__":
    sys.exit(main())
