"""Base bge-small against a fine-tuned run, by exact dense search, on sets no run trained on.

``python -m model_artifacts.encoder_tuning.evaluate --run .cache/encoder-tuning/run1 --out report.md``

* ``nfcorpus/dev``: every chunk of chunks-nfcorpus (the reranker data's passages), documents scored by
  their best chunk, as the evaluation aggregates;
* ``scifact/train[:N]``: the claims the training data held out, over every chunk of chunks-scifact;
* ``medline/held-out``: title → abstract for the next N eligible citations after those training used
  (searched among those N abstracts).

Both models run the same torch code (bf16, CLS, query prefix), so the comparison is the weights alone;
the served int8 file differs from the fp32 start by quantisation only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from control_plane.evaluation.query_sets import load_evaluation_set
from control_plane.measures.metrics import Qrels, Run, per_query
from control_plane.measures.significance import paired_test_by_query
from control_plane.models.tokenization import BatchTokenizer
from control_plane.reports.markdown import markdown_table
from model_artifacts.encoder_tuning.model import encode, encoder_from_state, load_encoder, load_onnx
from model_artifacts.encoder_tuning.source import fp32_folder
from model_artifacts.encoder_tuning.weights import bert_state
from model_artifacts.reranker.config import config_by_name
from model_artifacts.reranker.data import (
    DEFAULT_ROOT,
    data_folder,
    held_out_guard,
    medline_documents,
    medline_pairs,
    read_jsonl,
)
from model_artifacts.reranker.pairs import normalise_query

PROG = "python -m model_artifacts.encoder_tuning.evaluate"
METRICS = ("ndcg@10", "recall@10", "recall@100")
DEPTH = 100


@dataclass(frozen=True)
class EvalSet:
    name: str
    passage_doc_ids: tuple[str, ...]
    passages: tuple[str, ...]
    queries: Mapping[str, str]
    qrels: Qrels


def document_run(
    scores: npt.NDArray[np.float32], query_ids: Sequence[str], doc_ids: Sequence[str], depth: int
) -> Run:
    """Per query, the ``depth`` best documents, each scored by its best passage (``scores``: queries ×
    passages, ``doc_ids`` the document of each passage)."""
    run: dict[str, dict[str, float]] = {}
    for row, query_id in zip(scores, query_ids, strict=True):
        best: dict[str, float] = {}
        for index in np.argsort(-row, kind="stable"):
            doc = doc_ids[int(index)]
            if doc not in best:
                best[doc] = float(row[index])
                if len(best) == depth:
                    break
        run[query_id] = best
    return run


def _passages(folder: Path, source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    records = list(read_jsonl(folder / f"{source}-passages.jsonl"))
    return tuple(r["doc_id"] for r in records), tuple(r["text"] for r in records)


def _judged(test_set_id: str, limit: int | None) -> tuple[dict[str, str], Qrels]:
    evaluation = load_evaluation_set(test_set_id, limit=limit)
    return {q.query_id: q.text for q in evaluation.queries}, dict(evaluation.qrels)


def eval_sets(data_config: str, data_root: Path, medline_held_out: int) -> list[EvalSet]:
    settings = config_by_name(data_config).data
    folder = data_folder(settings, data_root)
    sets = []
    doc_ids, texts = _passages(folder, "nfcorpus")
    queries, qrels = _judged("nfcorpus/dev", None)
    sets.append(EvalSet("nfcorpus/dev", doc_ids, texts, queries, qrels))
    if settings.scifact_held_out:
        doc_ids, texts = _passages(folder, "scifact")
        queries, qrels = _judged("scifact/train", settings.scifact_held_out)
        sets.append(
            EvalSet(f"scifact/train[:{settings.scifact_held_out}] (held out)", doc_ids, texts, queries, qrels)
        )
    if medline_held_out:
        guard = held_out_guard(settings)
        passages, titles, _ = medline_pairs(
            medline_documents(), settings.medline_limit + medline_held_out, settings.medline_min_words, guard
        )
        trained = {normalise_query(t) for t in titles[: settings.medline_limit]}
        held = [(p, t) for p, t in zip(passages, titles, strict=True)][settings.medline_limit :]
        held = [(p, t) for p, t in held if normalise_query(t) not in trained]
        sets.append(
            EvalSet(
                f"medline/held-out ({len(held)} title → abstract)",
                tuple(p.id for p, _ in held),
                tuple(p.text for p, _ in held),
                {p.id: t for p, t in held},
                {p.id: {p.id: 1} for p, _ in held},
            )
        )
    return sets


def measure(
    encoder: Any, tokenizer: BatchTokenizer, sets: Sequence[EvalSet], label: str
) -> dict[str, dict[str, dict[str, float]]]:
    """Set name → query id → metric → value."""
    results = {}
    for item in sets:
        query_ids = list(item.queries)
        q = encode(encoder, tokenizer, [item.queries[i] for i in query_ids], queries=True)
        p = encode(encoder, tokenizer, item.passages, progress=f"{label}: {item.name}")
        run = document_run(q @ p.T, query_ids, item.passage_doc_ids, DEPTH)
        results[item.name] = per_query(item.qrels, run, METRICS)
    return results


def paired_cells(base: Mapping[str, float], tuned: Mapping[str, float]) -> list[str]:
    """Base mean, tuned mean, Δ, p (paired randomization test by query) and the query count, formatted."""
    test = paired_test_by_query(base, tuned)
    return [
        f"{np.mean(list(base.values())):.4f}",
        f"{np.mean(list(tuned.values())):.4f}",
        f"{test.mean_difference:+.4f}",
        f"{test.p_value:.3f}",
        str(len(base)),
    ]


def report(base: Mapping[str, Any], tuned: Mapping[str, Any], header: str) -> str:
    rows = []
    for name, base_queries in base.items():
        tuned_queries = tuned[name]
        for metric in METRICS:
            b = {q: v[metric] for q, v in base_queries.items()}
            t = {q: v[metric] for q, v in tuned_queries.items()}
            rows.append([name, metric, *paired_cells(b, t)])
    table = "\n".join(
        markdown_table(["set", "metric", "base bge-small", "tuned", "Δ", "p", "queries"], rows, "llrrrrr")
    )
    return f"{header}\n\n{table}\n\nΔ and p: paired randomization test per query (10,000 permutations).\n"


def write_report(out: Path, text: str, results: Mapping[str, Any]) -> None:
    """The markdown report at ``out``, its results as JSON beside it; the report printed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(results) + "\n", encoding="utf-8")
    print(text)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--run", type=Path, required=True, help="a train run folder (its final/ is evaluated)"
    )
    parser.add_argument("--out", type=Path, required=True, help="markdown report (results JSON beside it)")
    parser.add_argument(
        "--medline-held-out", type=int, default=1000, help="held-out MEDLINE pairs (default 1000)"
    )
    parser.add_argument("--data-root", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args(argv)
    train = json.loads((args.run / "train.json").read_text(encoding="utf-8"))
    sets = eval_sets(train["settings"]["data_config"], args.data_root, args.medline_held_out)
    source = fp32_folder()
    tokenizer = BatchTokenizer.from_file(source / "tokenizer.json", 512)
    started = time.monotonic()
    base = measure(encoder_from_state(bert_state(load_onnx(source / "model.onnx"))), tokenizer, sets, "base")
    tuned = measure(load_encoder(args.run / "final"), tokenizer, sets, "tuned")
    header = (
        f"# bge-small fine-tuned ({args.run.name}) against its start\n\n"
        f"- Command: `{PROG} {' '.join(sys.argv[1:] if argv is None else argv)}`\n"
        f"- Trained by: `{train['command']}` (settings in {args.run / 'train.json'})\n"
        f"- Encoding and search took {time.monotonic() - started:.0f} s."
    )
    write_report(args.out, report(base, tuned, header), {"base": base, "tuned": tuned})
    return 0


if __name__ == "__main__":
    sys.exit(main())
