"""Fine-tune the cross-encoder: listwise loss over groups of one query's passages, resumable.

``python -m model_artifacts.reranker.train --config cpu --out .cache/reranker/run1 [--resume]``

The run folder holds ``train.json`` (config, command, data digests, versions), ``log.jsonl`` (loss per
step), ``validation.jsonl``, ``checkpoints/step-NNNNNN/`` (the newest few) and, at the end, ``final/``
(the model export reads) with ``summary.json``. Everything random is a function of the seed and the step:
the data schedule (``pairs.schedule``), each group's sampling (``pairs.group_rng``) and dropout (torch is
reseeded every step), so a resumed run continues exactly as the uninterrupted one would have.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import platform
import shlex
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from control_plane.models.cross_encoder import encode_pairs
from control_plane.models.tokenization import BatchTokenizer, pad_encodings
from model_artifacts.reranker import checkpoints
from model_artifacts.reranker.config import TrainConfig, config_by_name
from model_artifacts.reranker.data import (
    DEFAULT_ROOT,
    REPO_ROOT,
    TrainingData,
    ensure_data,
    ensure_teacher,
    load_data,
)
from model_artifacts.reranker.model import (
    INPUTS,
    TOKENIZER_FILE,
    base_folder,
    freeze_word_embeddings,
    is_head,
    load_cross_encoder,
    new_cross_encoder,
    save_cross_encoder,
    torch_lib,
    torch_scores,
)
from model_artifacts.reranker.pairs import build_group, group_rng, schedule
from model_artifacts.reranker.ranking import DevMetrics, dev_metrics
from model_artifacts.reranker.teacher import group_loss, teacher_targets

PROG = "python -m model_artifacts.reranker.train"
STATE_FILE = checkpoints.STATE_FILE
log = logging.getLogger("model_artifacts.reranker.train")


class RunError(RuntimeError):
    """The run folder cannot be started or resumed as asked; the message says what to do."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--config", required=True, help="smoke, cpu or gpu (model_artifacts/reranker/config.py)"
    )
    parser.add_argument("--out", required=True, type=Path, help="run folder")
    parser.add_argument("--resume", action="store_true", help="continue from the run's latest checkpoint")
    parser.add_argument(
        "--stop-after",
        type=int,
        metavar="STEP",
        help="checkpoint and end this invocation at global step STEP (continue later with --resume)",
    )
    parser.add_argument("--data-root", type=Path, default=DEFAULT_ROOT, help="training data cache root")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from installed packages, never a hub
    invocation = "python -m model_artifacts.reranker.train " + shlex.join(
        sys.argv[1:] if argv is None else list(argv)
    )
    try:
        config = config_by_name(args.config)
        summary = train(
            config,
            args.out,
            resume=args.resume,
            stop_after=args.stop_after,
            data_root=args.data_root,
            progress=not args.no_progress,
            invocation=invocation,
        )
    except (RunError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(summary, indent=2))
    return 0


def canonical_command(config: TrainConfig, out: Path) -> str:
    """The command that makes this run from scratch (what the model manifest records)."""
    return f"{PROG} --config {config.name} --out {repo_relative(out)}"


def repo_relative(path: Path) -> Path:
    """``path`` relative to the repository when inside it, so a run's record reads the same in any clone."""
    return path.resolve().relative_to(REPO_ROOT) if path.resolve().is_relative_to(REPO_ROOT) else path


def train(
    config: TrainConfig,
    out: Path,
    *,
    resume: bool,
    stop_after: int | None,
    data_root: Path,
    progress: bool,
    invocation: str,
) -> dict[str, Any]:
    torch = torch_lib()
    if config.threads > 0:
        torch.set_num_threads(config.threads)
    device = _device(torch, config)
    folder = ensure_data(config.data, data_root)
    if config.distil_from is not None:
        ensure_teacher(config.data, config.distil_from, data_root)
    data = load_data(folder, teacher=config.distil_from)
    source = base_folder(config.base, REPO_ROOT / ".cache" / "models")
    record = _start_record(config, out, resume, data, source, invocation)
    tokenizer = BatchTokenizer.from_file(source / TOKENIZER_FILE, config.max_length)

    model, optimizer, scheduler, start = _model_and_optimizer(torch, config, out, resume, source, device)
    _truncate_log(out / "log.jsonl", start)

    sizes = {name: len(s.queries) for name, s in data.sources.items()}
    names, plan = schedule(sizes, config.mix_weights, config.steps, config.batch_groups, config.seed)
    pools = {name: sorted(s.passages) for name, s in data.sources.items()}
    end = min(config.steps, stop_after) if stop_after is not None else config.steps
    train_seconds, ema = 0.0, math.nan
    bar = tqdm(
        total=config.steps,
        initial=start,
        unit="step",
        desc=f"train {config.model_name} ({config.name})",
        dynamic_ncols=True,
        disable=not progress,
    )
    with (out / "log.jsonl").open("a", encoding="utf-8") as step_log:
        for step in range(start, end):
            began = time.perf_counter()
            loss, by_source = _step(
                torch, model, tokenizer, data, names, plan[step], pools, config, step, device
            )
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            seconds = time.perf_counter() - began
            train_seconds += seconds
            ema = loss if math.isnan(ema) else 0.9 * ema + 0.1 * loss
            lr = float(scheduler.get_last_lr()[0])
            record_step = {"step": step + 1, "loss": loss, "lr": lr, "seconds": round(seconds, 4)}
            step_log.write(json.dumps({**record_step, "by_source": by_source}) + "\n")
            step_log.flush()
            bar.update(1)
            bar.set_postfix(loss=f"{ema:.4f}", lr=f"{lr:.2e}")
            done = step + 1
            if done % config.eval_every == 0 or done == config.steps:
                metrics = validate(model, tokenizer, data, config, device)
                _append(out / "validation.jsonl", {"step": done, **asdict(metrics)})
                bar.write(
                    f"step {done}: dev AUC {metrics.auc:.4f}, nDCG@10 {metrics.ndcg10_first_stage:.4f} -> "
                    f"{metrics.ndcg10_reranked:.4f} ({metrics.queries} queries, top {metrics.depth})"
                )
            if done % config.checkpoint_every == 0 or done == end:
                _checkpoint(torch, out, done, model, optimizer, scheduler, source, config)
    bar.close()
    ran = end - start
    summary: dict[str, Any] = {
        "run": str(out),
        "steps_done": end,
        "steps_total": config.steps,
        "steps_this_invocation": ran,
        "seconds_per_step": round(train_seconds / ran, 4) if ran else None,
        "pairs_per_s": round(ran * config.batch_groups * config.group_size / train_seconds, 2)
        if ran
        else None,
        "projected_train_minutes": round(config.steps * train_seconds / ran / 60, 1) if ran else None,
        "loss": _loss_summary(out / "log.jsonl"),
    }
    if end == config.steps:
        save_cross_encoder(model, out / "final", source / TOKENIZER_FILE)
        summary["validation"] = _last_line(out / "validation.jsonl")
        (out / "final" / "summary.json").write_text(json.dumps({**summary, **record}, indent=2) + "\n")
    return summary


def _model_and_optimizer(
    torch: Any, config: TrainConfig, out: Path, resume: bool, source: Path, device: str
) -> tuple[Any, Any, Any, int]:
    """(model, optimizer, scheduler, first step): from the latest checkpoint when resuming, else new."""
    ckpt = checkpoints.latest(out) if resume else None
    model = load_cross_encoder(ckpt) if ckpt is not None else new_cross_encoder(source, config.seed)
    if config.freeze_word_embeddings:
        freeze_word_embeddings(model)
    model.to(device).train()
    optimizer, scheduler = _optimizer(torch, model, config)
    if ckpt is None:
        return model, optimizer, scheduler, 0
    state = torch.load(ckpt / STATE_FILE, weights_only=False)
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    log.info("resumed from %s at step %d", ckpt, state["step"])
    return model, optimizer, scheduler, int(state["step"])


def _device(torch: Any, config: TrainConfig) -> str:
    if config.device == "cuda" or (config.device == "auto" and torch.cuda.is_available()):
        if not torch.cuda.is_available():
            raise RunError(f"config {config.name!r} needs a CUDA GPU; none is visible (use --config cpu)")
        return "cuda"
    return "cpu"


def _start_record(
    config: TrainConfig, out: Path, resume: bool, data: TrainingData, source: Path, invocation: str
) -> dict[str, Any]:
    """Create or check ``train.json``: a run continues only with the config and data it started with."""
    path = out / "train.json"
    data_digest = {name: entry["files"] for name, entry in data.manifest["sources"].items()}
    if config.distil_from is not None:
        data_digest[f"teacher-{config.distil_from}"] = data.manifest["teachers"][config.distil_from]
    if path.is_file():
        if not resume:
            raise RunError(
                f"{out} already holds a run: pass --resume to continue it, or choose another --out"
            )
        record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if record["config"] != json.loads(json.dumps(config.to_json())):
            raise RunError(
                f"{out} was started with other settings than config {config.name!r}; use a new --out"
            )
        if record["data"]["files"] != data_digest:
            raise RunError(f"the training data in {data.folder} changed since {out} started; use a new --out")
    else:
        out.mkdir(parents=True, exist_ok=True)
        record = {
            "command": canonical_command(config, out),
            "config": config.to_json(),
            "base_weights": str(repo_relative(source)),
            "data": {"folder": str(repo_relative(data.folder)), "files": data_digest},
            "versions": _versions(),
            "invocations": [],
        }
    record["invocations"].append({"command": invocation, "at": time.strftime("%Y-%m-%dT%H:%M:%S")})
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    return {
        "python": platform.python_version(),
        **{p: md.version(p) for p in ("torch", "transformers", "tokenizers", "numpy")},
    }


def _optimizer(torch: Any, model: Any, config: TrainConfig) -> tuple[Any, Any]:
    """AdamW (no decay on biases and LayerNorm; the new head at its own rate), linear warmup then linear
    decay to 0."""
    groups: dict[tuple[bool, bool], list[Any]] = {}
    for name, param in model.named_parameters():
        if param.requires_grad:
            head = is_head(name)
            plain = name.endswith("bias") or "LayerNorm" in name
            groups.setdefault((head, plain), []).append(param)
    optimizer = torch.optim.AdamW(
        [
            {
                "params": params,
                "lr": config.head_learning_rate if head else config.learning_rate,
                "weight_decay": 0.0 if plain else config.weight_decay,
            }
            for (head, plain), params in sorted(groups.items())
        ]
    )
    warmup, total = max(config.warmup_steps, 1), config.steps

    def factor(step: int) -> float:
        return min((step + 1) / warmup, max(0.0, (total - step) / max(total - warmup, 1)))

    return optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def _step(
    torch: Any,
    model: Any,
    tokenizer: BatchTokenizer,
    data: TrainingData,
    names: tuple[str, ...],
    slots: np.ndarray[Any, Any],
    pools: dict[str, list[str]],
    config: TrainConfig,
    step: int,
    device: str,
) -> tuple[float, dict[str, float]]:
    """Forward and backward one batch of groups; returns the loss, overall and per source of its groups
    (the caller steps the optimizer). A group whose query has teacher scores adds the distillation term,
    ``distil_weight`` × the cross-entropy from the teacher's distribution."""
    pairs: list[tuple[str, str]] = []
    sources: list[str] = []
    targets: list[tuple[float, ...]] = []
    taught: list[tuple[float, ...]] = []
    for slot, (source_index, query_index) in enumerate(slots):
        source = names[int(source_index)]
        query = data.sources[source].queries[int(query_index)]
        group = build_group(query, config.group_size, group_rng(config.seed, step, slot), pools[source])
        passages = data.sources[source].passages
        pairs.extend((query.text, passages[p]) for p in group.passage_ids)
        targets.append(group.targets)
        sources.append(source)
        scores = data.teachers.get(source, {}).get(query.query_id)
        taught.append(
            teacher_targets([scores.get(p, 0.0) for p in group.passage_ids], config.distil_temperature)
            if scores is not None
            else (0.0,) * len(group.passage_ids)
        )
    encodings = encode_pairs(tokenizer, pairs)
    run = pad_encodings(list(range(len(pairs))), encodings, tokenizer.pad_id)
    feeds = {k: torch.from_numpy(v).to(device) for k, v in run.feeds(INPUTS).items()}
    torch.manual_seed(config.seed * 1_000_003 + step)  # dropout masks depend on the step only
    with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=config.precision == "bf16"):
        logits = model(**feeds).float().view(len(targets), config.group_size)
    target = torch.tensor(targets, dtype=torch.float32, device=device)
    teacher = torch.tensor(taught, dtype=torch.float32, device=device)
    weight = config.distil_weight if config.distil_from is not None else 0.0
    per_group = group_loss(torch.log_softmax(logits, dim=1), target, teacher, weight)
    loss = per_group.mean()
    loss.backward()
    torch.nn.utils.clip_grad_norm_([p for p in model.parameters() if p.requires_grad], config.max_grad_norm)
    values = per_group.detach().cpu().tolist()
    by_source = {
        name: round(float(np.mean([v for v, s in zip(values, sources, strict=True) if s == name])), 4)
        for name in sorted(set(sources))
    }
    return float(loss.item()), by_source


def validation_queries(data: TrainingData, count: int) -> list[int]:
    """A fixed sample of dev queries (the same for every run and step)."""
    order = np.random.default_rng(0).permutation(len(data.dev))
    return sorted(int(i) for i in order[:count])


def validate(
    model: Any, tokenizer: BatchTokenizer, data: TrainingData, config: TrainConfig, device: str
) -> DevMetrics:
    chosen = [data.dev[i] for i in validation_queries(data, config.val_queries)]
    candidates = [q.candidates[: config.val_depth] for q in chosen]
    passages = data.sources["nfcorpus"].passages
    pairs = [(q.text, passages[p]) for q, c in zip(chosen, candidates, strict=True) for p in c]
    flat = torch_scores(model, tokenizer, pairs, device)
    scores, offset = [], 0
    for c in candidates:
        scores.append(flat[offset : offset + len(c)].tolist())
        offset += len(c)
    return dev_metrics(candidates, [q.grades for q in chosen], scores, data.doc_of)


def _checkpoint(
    torch: Any,
    out: Path,
    step: int,
    model: Any,
    optimizer: Any,
    scheduler: Any,
    source: Path,
    config: TrainConfig,
) -> None:
    def write(folder: Path) -> None:
        save_cross_encoder(model, folder, source / TOKENIZER_FILE)
        state = {"step": step, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}
        torch.save(state, folder / STATE_FILE)

    checkpoints.save(out, step, write, config.keep_checkpoints)


def _truncate_log(path: Path, step: int) -> None:
    """Drop log lines past ``step`` (written after the checkpoint a resume starts from)."""
    if not path.is_file():
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if json.loads(line)["step"] <= step), encoding="utf-8")


def _append(path: Path, record: dict[str, Any]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")


def _last_line(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[-1]) if lines else None


def _loss_summary(path: Path, window: int = 10) -> dict[str, Any]:
    """Mean loss of the first and the last ``window`` steps of the whole run, overall and per source."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    if not records:
        return {}
    summary: dict[str, Any] = {"first": _mean([r["loss"] for r in records[:window]])}
    summary["last"] = _mean([r["loss"] for r in records[-window:]])
    per_source: dict[str, list[float]] = {}
    for record in records:
        for source, value in record.get("by_source", {}).items():
            per_source.setdefault(source, []).append(value)
    summary["by_source"] = {
        source: {"first": _mean(values[:window]), "last": _mean(values[-window:]), "steps": len(values)}
        for source, values in sorted(per_source.items())
    }
    return summary


def _mean(values: Sequence[float]) -> float:
    return round(float(np.mean(values)), 4)


if __name__ == "__main__":
    sys.exit(main())
