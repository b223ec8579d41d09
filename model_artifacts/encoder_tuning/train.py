"""Fine-tune bge-small on training pairs: contrastive loss over in-batch and mined hard negatives.

``python -m model_artifacts.encoder_tuning.train --out .cache/encoder-tuning/run1``

Each step takes ``batch`` triples (query, positive, hard negative); query i is scored against all 2·batch
passages of the step and the loss is the cross-entropy of its own positive (InfoNCE at temperature 0.02,
BGE's fine-tuning temperature), with passages that are another slot's copy of its positive masked out.
Queries carry bge-small's instruction prefix, passages none, as the service encodes them. The run folder
holds ``train.json`` (settings, command, data digests), ``log.jsonl`` (loss per step) and ``final/``
(Hugging Face folder + tokenizer.json). Not resumable: a CPU run is ≈ 20 minutes.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from control_plane.models.dense import with_query_prefix
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts.encoder_tuning.loop import (
    ordered_feeds,
    seeded_plan,
    warmup_cosine_scheduler,
    write_run_record,
)
from model_artifacts.encoder_tuning.model import (
    cls_embeddings,
    encoder_from_state,
    load_onnx,
    query_prefix,
)
from model_artifacts.encoder_tuning.pairs import false_negative_mask
from model_artifacts.encoder_tuning.source import fp32_folder
from model_artifacts.encoder_tuning.weights import bert_state
from model_artifacts.reranker.data import DEFAULT_ROOT
from model_artifacts.reranker.model import torch_lib

PROG = "python -m model_artifacts.encoder_tuning.train"
log = logging.getLogger("model_artifacts.encoder_tuning.train")


@dataclass(frozen=True)
class TuneSettings:
    data_config: str = "cpu-hybrid"
    """The reranker config whose training data (and held-out claims) this run uses."""
    mix: tuple[tuple[str, float], ...] = (("nfcorpus", 0.45), ("scifact", 0.3), ("medline", 0.25))
    steps: int = 240
    batch: int = 16
    learning_rate: float = 1e-5
    warmup_steps: int = 24
    weight_decay: float = 0.01
    temperature: float = 0.02
    query_max_length: int = 64
    passage_max_length: int = 256
    freeze_word_embeddings: bool = True
    seed: int = 13
    threads: int = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True, help="run folder (must not exist)")
    defaults = TuneSettings()
    parser.add_argument(
        "--steps", type=int, default=defaults.steps, help=f"optimizer steps (default {defaults.steps})"
    )
    parser.add_argument(
        "--batch", type=int, default=defaults.batch, help=f"triples per step (default {defaults.batch})"
    )
    parser.add_argument("--learning-rate", type=float, default=defaults.learning_rate)
    parser.add_argument(
        "--data-root", type=Path, default=DEFAULT_ROOT, help="reranker training-data cache root"
    )
    return parser


def train(settings: TuneSettings, out: Path, data_root: Path) -> Path:
    torch = torch_lib()
    plan = seeded_plan(settings, data_root)
    source = fp32_folder()
    encoder = encoder_from_state(bert_state(load_onnx(source / "model.onnx")))
    if settings.freeze_word_embeddings:
        encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    queries = BatchTokenizer.from_file(source / "tokenizer.json", settings.query_max_length)
    passages = BatchTokenizer.from_file(source / "tokenizer.json", settings.passage_max_length)
    trainable = [p for p in encoder.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=settings.learning_rate, weight_decay=settings.weight_decay)
    scheduler = warmup_cosine_scheduler(optimizer, settings)
    out.mkdir(parents=True)
    write_run_record(out, PROG, settings, plan.data)
    encoder.train()
    started = time.monotonic()
    with (out / "log.jsonl").open("w", encoding="utf-8") as log_file:
        for step in tqdm(range(settings.steps), desc="tune bge-small", unit="step"):
            triples = plan.triples(step)
            loss = _loss(encoder, queries, passages, triples, settings)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(trainable, 1.0)
            optimizer.step()
            scheduler.step()
            record = {
                "step": step + 1,
                "loss": round(float(loss), 5),
                "seconds": round(time.monotonic() - started, 1),
            }
            log_file.write(json.dumps(record) + "\n")
            log_file.flush()
    final = out / "final"
    encoder.save_pretrained(str(final), safe_serialization=True)
    shutil.copyfile(source / "tokenizer.json", final / "tokenizer.json")
    return final


def _loss(
    encoder: Any,
    queries: BatchTokenizer,
    passages: BatchTokenizer,
    triples: Sequence[Any],
    settings: TuneSettings,
) -> Any:
    torch = torch_lib()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        q = cls_embeddings(
            encoder, ordered_feeds(queries, with_query_prefix([t.query for t in triples], query_prefix()))
        )
        p = cls_embeddings(
            encoder, ordered_feeds(passages, [t.positive for t in triples] + [t.negative for t in triples])
        )
    logits = (q @ p.T) / settings.temperature
    logits = logits.masked_fill(torch.from_numpy(false_negative_mask(triples)), float("-inf"))
    return torch.nn.functional.cross_entropy(logits, torch.arange(len(triples)))


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.out.exists():
        print(f"error: {args.out} exists; choose a new run folder", file=sys.stderr)
        return 2
    settings = TuneSettings(steps=args.steps, batch=args.batch, learning_rate=args.learning_rate)
    final = train(settings, args.out, args.data_root)
    print(json.dumps({"final": str(final)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
