"""Export a trained cross-encoder to ONNX (fp32, int8, int8w), check parity, print its manifest entry.

``python -m model_artifacts.reranker.export --run .cache/reranker/run1 [--commit] [--write-manifest]``

Uses the same machinery as ``python -m model_artifacts.build``: the TorchScript exporter (opset 17,
dynamic batch and sequence axes) and the project's int8 variants (``int8``: onnxruntime dynamic, per
channel; ``int8w``: int8 weights with per-channel scales, fp32 arithmetic). Parity:

* fixed pairs (the build's fixed texts as queries × passages, truncation included): fp32 ONNX vs PyTorch,
  max abs diff ≤ 1e-4 or the command fails;
* dev pairs (first-stage candidates of a fixed sample of NFCorpus dev queries): every variant vs
  PyTorch: max abs diff, share of passage pairs ordered alike, top-10 overlap, AUC and nDCG@10.

Variants go to ``.cache/models/<name>/<variant>/``; the report to ``<run>/export/<name>.md``.
``--commit`` copies the runtime variant to model_artifacts/onnx/<name>/ (refused above 25 MB) with the
report and the PyTorch reference scores (model_artifacts/reference/<name>.npz, for torch-free tests);
``--write-manifest`` puts the entry into control_plane/models/manifest.yaml.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import yaml

from control_plane.checksums import sha256_file
from control_plane.models.artifacts import ArtifactFiles
from control_plane.models.cross_encoder import CrossEncoderScorer, Pair
from control_plane.models.loading import LoadedModel
from control_plane.models.manifest import DEFAULT_MANIFEST, ModelSpec, Source, load_manifest
from control_plane.models.parts import commit_folder
from control_plane.models.runtime import OnnxModel
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts import export as base_export
from model_artifacts.manifest_writer import file_digests
from model_artifacts.parity import TOLERANCE
from model_artifacts.reranker.data import REPO_ROOT, TrainingData, load_data
from model_artifacts.reranker.model import (
    INPUTS,
    OUTPUT,
    TOKENIZER_FILE,
    load_cross_encoder,
    torch_scores,
)
from model_artifacts.reranker.ranking import dev_metrics, pair_order_agreement, top_k_overlap
from model_artifacts.reranker.train import validation_queries
from model_artifacts.texts import FIXED_TEXTS

PROG = "python -m model_artifacts.reranker.export"
VARIANTS = ("fp32", "int8", "int8w")
HERE = Path(__file__).resolve().parents[1]
FIXED_PAIRS: tuple[Pair, ...] = tuple(itertools.product(FIXED_TEXTS[:4], FIXED_TEXTS[4:]))
"""Short queries × passages from one sentence to far past any max length: padding and truncation."""
TRAINING_TERMS = (
    "fine-tuned on NFCorpus train (research and non-commercial use), SciFact train (CC BY-NC 2.0) and a "
    "PubMed/MEDLINE sample (NLM terms): check those terms before commercial use"
)


def licence(base: ModelSpec) -> str:
    """The base weights' licence (its manifest entry's first clause) and the training data's terms."""
    return f"base weights {base.licence.split(';')[0]}; {TRAINING_TERMS}"


@dataclass(frozen=True)
class VariantParity:
    variant: str
    bytes: int
    sha256: str
    fixed_max_abs_diff: float
    dev_max_abs_diff: float
    dev_pair_order_agreement: float
    dev_top10_overlap: float
    dev_auc: float
    dev_ndcg10: float
    pairs_per_s: float


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--run", required=True, type=Path, help="training run folder")
    parser.add_argument("--checkpoint", default="final", help="'final' or a checkpoint such as step-000200")
    parser.add_argument("--name", help="model name (default: the run config's model_name)")
    parser.add_argument("--runtime-variant", choices=VARIANTS, default="int8w", help="the variant served")
    parser.add_argument("--dev-queries", type=int, default=40, help="dev queries in the parity sample")
    parser.add_argument("--dev-depth", type=int, default=20, help="first-stage passages per dev query")
    parser.add_argument("--cache", type=Path, default=REPO_ROOT / ".cache" / "models", help="variant folders")
    parser.add_argument(
        "--commit", action="store_true", help="copy the runtime variant to model_artifacts/onnx"
    )
    parser.add_argument("--write-manifest", action="store_true", help="write the entry into manifest.yaml")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    record = json.loads((args.run / "train.json").read_text(encoding="utf-8"))
    config = record["config"]
    name = args.name or config["model_name"]
    folder = args.run / "final" if args.checkpoint == "final" else args.run / "checkpoints" / args.checkpoint
    if not (folder / TOKENIZER_FILE).is_file():
        print(f"error: {folder} holds no trained model (train first, or pick a checkpoint)", file=sys.stderr)
        return 2
    data = load_data(REPO_ROOT / record["data"]["folder"])  # relative to the repository, or absolute
    model = load_cross_encoder(folder).eval()
    tokenizer = BatchTokenizer.from_file(folder / TOKENIZER_FILE, int(config["max_length"]))
    made = export_variants(model, folder, args.cache / name, name, config)
    chosen = [data.dev[i] for i in validation_queries(data, args.dev_queries)]
    candidates = [q.candidates[: args.dev_depth] for q in chosen]
    dev_pairs = [
        (q.text, data.sources["nfcorpus"].passages[p])
        for q, c in zip(chosen, candidates, strict=True)
        for p in c
    ]
    reference_fixed = torch_scores(model, tokenizer, FIXED_PAIRS, "cpu")
    reference_dev = torch_scores(model, tokenizer, dev_pairs, "cpu")
    spec = model_spec(name, int(config["max_length"]), config["base"], args.runtime_variant)
    results = [
        variant_parity(
            spec, target, tokenizer, reference_fixed, reference_dev, dev_pairs, candidates, chosen, data
        )
        for target in made.values()
    ]
    torch_dev = _dev(reference_dev, candidates, chosen, data)
    chosen_checkpoint = "" if args.checkpoint == "final" else f" --checkpoint {args.checkpoint}"
    variant = "" if args.runtime_variant == "int8w" else f" --runtime-variant {args.runtime_variant}"
    export_command = f"{PROG} --run {_shown(args.run)}{chosen_checkpoint}{variant} --commit --write-manifest"
    report = render(name, record, folder, results, torch_dev, len(chosen), args.dev_depth)
    (args.run / "export").mkdir(exist_ok=True)
    (args.run / "export" / f"{name}.md").write_text(report, encoding="utf-8")
    fp32 = next(r for r in results if r.variant == "fp32")
    if fp32.fixed_max_abs_diff > TOLERANCE:
        print(
            f"error: fp32 ONNX differs from PyTorch by {fp32.fixed_max_abs_diff:.2e} (> {TOLERANCE:g})",
            file=sys.stderr,
        )
        return 1
    committed = None
    if args.commit:
        committed = commit(name, made[args.runtime_variant], reference_fixed, report)
    entry = manifest_entry(
        name, record, config, args.runtime_variant, made, committed, torch_dev, export_command
    )
    print(report)
    print(yaml.safe_dump([entry], sort_keys=False, width=120, allow_unicode=True))
    if args.write_manifest:
        upsert_manifest_entry(DEFAULT_MANIFEST, entry)
    return 0


def export_variants(
    model: Any, folder: Path, target: Path, name: str, config: dict[str, Any]
) -> dict[str, Path]:
    """Export fp32 and derive int8 / int8w under ``target``; returns variant → folder."""
    from model_artifacts import quantize  # needs onnx (the export extra)

    torch_model = base_export.TorchModel(module=model, input_names=INPUTS, output_name=OUTPUT)
    folded = target / "export" / "model.onnx"
    base_export.export_onnx(torch_model, folded)
    made = {variant: target / variant for variant in VARIANTS}
    for variant, out in made.items():
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        shutil.copyfile(folder / TOKENIZER_FILE, out / TOKENIZER_FILE)
        artifact_config = {
            "name": name,
            "role": "rerank",
            "variant": variant,
            "base": config["base"],
            "max_length": config["max_length"],
            "dimension": 1,
            "pooling": "mean",
            "inputs": list(torch_model.input_names),
            "output": OUTPUT,
            "opset": base_export.OPSET,
        }
        (out / "config.json").write_text(json.dumps(artifact_config, indent=2) + "\n", encoding="utf-8")
    quantize.share_transposed_duplicates(folded, made["fp32"] / "model.onnx")
    quantize.dynamic_int8(folded, made["int8"] / "model.onnx")
    quantize.weight_only_int8(folded, made["int8w"] / "model.onnx")
    shutil.rmtree(folded.parent)
    return made


def model_spec(name: str, max_length: int, base: str, runtime_variant: str) -> ModelSpec:
    source = load_manifest().model(base).source
    return ModelSpec(
        name=name,
        role="rerank",
        description=f"cross-encoder fine-tuned from {base}",
        source=Source(source.package, source.version, source.path, source.install),
        architecture="",
        tokenizer="",
        max_length=max_length,
        dimension=1,
        pooling="mean",
        normalize=False,
        licence=licence(load_manifest().model(base)),
        batch_invariant=batch_invariant(runtime_variant),
        runtime_variant=runtime_variant,
        build="",
    )


def batch_invariant(runtime_variant: str) -> bool:
    """Dynamic int8 computes activation scales per call: a pair's logit would move with its batch-mates."""
    return runtime_variant != "int8"


def _taught_by(config: dict[str, Any]) -> str:
    """`` with distillation from <pipeline>`` for a run that distilled (older runs lack the key)."""
    teacher = config.get("distil_from")
    return f" with distillation from {teacher}" if teacher else ""


def onnx_scorer(spec: ModelSpec, folder: Path, tokenizer: BatchTokenizer) -> CrossEncoderScorer:
    files = ArtifactFiles(
        name=spec.name,
        variant=folder.name,
        folder=folder,
        model=folder / "model.onnx",
        tokenizer=folder / TOKENIZER_FILE,
    )
    loaded = LoadedModel(
        spec=spec, files=files, session=OnnxModel(files.model, device="cpu"), tokenizer=tokenizer
    )
    return CrossEncoderScorer(loaded)


def variant_parity(
    spec: ModelSpec,
    folder: Path,
    tokenizer: BatchTokenizer,
    reference_fixed: npt.NDArray[np.float32],
    reference_dev: npt.NDArray[np.float32],
    dev_pairs: Sequence[Pair],
    candidates: Sequence[Sequence[str]],
    chosen: Sequence[Any],
    data: TrainingData,
) -> VariantParity:
    scorer = onnx_scorer(spec, folder, tokenizer)
    fixed = scorer.score_pairs(FIXED_PAIRS)
    started = time.perf_counter()
    dev = scorer.score_pairs(dev_pairs)
    rate = len(dev_pairs) / (time.perf_counter() - started)
    agreement, overlap = [], []
    for ref, var in zip(_split(reference_dev, candidates), _split(dev, candidates), strict=True):
        if len(ref) < 2:
            continue  # a query the first stage found one passage for has no order to agree on
        agreement.append(pair_order_agreement(ref, var))
        overlap.append(top_k_overlap(ref, var, 10))
    metrics = _dev(dev, candidates, chosen, data)
    return VariantParity(
        variant=folder.name,
        bytes=(folder / "model.onnx").stat().st_size,
        sha256=sha256_file(folder / "model.onnx"),
        fixed_max_abs_diff=_max_abs_diff(fixed, reference_fixed),
        dev_max_abs_diff=_max_abs_diff(dev, reference_dev),
        dev_pair_order_agreement=float(np.mean(agreement)),
        dev_top10_overlap=float(np.mean(overlap)),
        dev_auc=metrics["auc"],
        dev_ndcg10=metrics["ndcg10_reranked"],
        pairs_per_s=rate,
    )


def _split(flat: npt.NDArray[np.float32], candidates: Sequence[Sequence[str]]) -> list[list[float]]:
    out, offset = [], 0
    for c in candidates:
        out.append(flat[offset : offset + len(c)].tolist())
        offset += len(c)
    return out


def _dev(
    flat: npt.NDArray[np.float32],
    candidates: Sequence[Sequence[str]],
    chosen: Sequence[Any],
    data: TrainingData,
) -> dict[str, Any]:
    return asdict(dev_metrics(candidates, [q.grades for q in chosen], _split(flat, candidates), data.doc_of))


def _max_abs_diff(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def render(
    name: str,
    record: dict[str, Any],
    folder: Path,
    results: Sequence[VariantParity],
    torch_dev: dict[str, Any],
    queries: int,
    depth: int,
) -> str:
    lines = [
        f"# {name}: cross-encoder export and parity",
        "",
        f"- trained by: `{record['command']}` "
        f"(config `{record['config']['name']}`, seed {record['config']['seed']})",
        f"- exported from: `{_shown(folder)}`",
        f"- fixed pairs: {len(FIXED_PAIRS)} (queries × passages up to far past the max length); "
        f"dev pairs: {queries} NFCorpus dev queries × first-stage top {depth}",
        f"- PyTorch on the dev pairs: AUC {torch_dev['auc']:.4f}, nDCG@10 first stage "
        f"{torch_dev['ndcg10_first_stage']:.4f} → reranked {torch_dev['ndcg10_reranked']:.4f}",
        "",
        "| variant | model.onnx | fixed max abs diff | dev max abs diff | dev pair order agreement "
        "| dev top-10 overlap | dev AUC | dev nDCG@10 | pairs/s (CPU) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r.variant} | {r.bytes / 1e6:.1f} MB | {r.fixed_max_abs_diff:.2e} | {r.dev_max_abs_diff:.2e} "
            f"| {r.dev_pair_order_agreement:.4f} | {r.dev_top10_overlap:.3f} | {r.dev_auc:.4f} "
            f"| {r.dev_ndcg10:.4f} | {r.pairs_per_s:.1f} |"
        )
    lines += ["", f"Differences are vs PyTorch (fp32); the fp32 graph must stay within {TOLERANCE:g}.", ""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Committed:
    folder: Path
    in_pieces: bool
    """model.onnx was over the commit limit, so it is committed in numbered pieces that ``biohybrid models
    fetch`` joins into the variant's cache folder (control_plane/models/parts.py)."""


def commit(name: str, folder: Path, reference_fixed: npt.NDArray[np.float32], report: str) -> Committed:
    """Copy the runtime variant to model_artifacts/onnx/<name> (model.onnx in pieces when over the commit
    limit), with its fixed-pair reference outputs and the parity report."""
    target = HERE / "onnx" / name
    in_pieces = commit_folder(folder, target)
    np.savez_compressed(
        HERE / "reference" / f"{name}.npz",
        queries=np.array([q for q, _ in FIXED_PAIRS]),
        passages=np.array([p for _, p in FIXED_PAIRS]),
        torch=reference_fixed,
    )
    (HERE / "reports" / f"{name}.md").write_text(report, encoding="utf-8")
    return Committed(target, in_pieces)


def manifest_entry(
    name: str,
    record: dict[str, Any],
    config: dict[str, Any],
    runtime_variant: str,
    made: dict[str, Path],
    committed: Committed | None,
    torch_dev: dict[str, Any],
    export_command: str,
) -> dict[str, Any]:
    """The model's manifest entry. Committed whole, the runtime variant is served from the committed
    folder; committed in pieces, from its cache folder, which ``biohybrid models fetch`` fills (the
    source is then the pieces, not the base's package)."""
    base = load_manifest().model(config["base"])
    if base.source.fetched and committed is None:
        raise ValueError(
            f"{name}: its base {base.name} comes from {base.source.label}, which holds the base's weights, "
            "not this model's; export with --commit so that the entry points at the committed files"
        )
    # Sourced from the committed files (the pieces, or a whole file, which `models fetch` copies alike)
    # when they are over the limit or when the base's own source is a jar or pieces `models fetch` reads.
    from_pieces = committed is not None and (committed.in_pieces or base.source.fetched)
    served_from_commit = committed is not None and not from_pieces
    artifacts = {}
    for variant, folder in made.items():
        from_commit = served_from_commit and variant == runtime_variant
        where = committed.folder if committed is not None and from_commit else folder
        artifacts[variant] = {
            "path": _shown(where),
            "committed": from_commit,
            "files": file_digests(folder),
        }
    source = (
        {"parts": _shown(committed.folder)} if committed is not None and from_pieces else asdict(base.source)
    )
    return {
        "name": name,
        "role": "rerank",
        "description": f"biomedical cross-encoder fine-tuned here from {base.name}{_taught_by(config)} "
        "(query + passage → one relevance logit)",
        "source": source,
        "architecture": f"{base.architecture.split(' (')[0]}; logit = scale × cosine(mean of the query "
        "segment's last hidden states, mean of the passage segment's)",
        "tokenizer": "tokenizer.json from the source; [CLS] query [SEP] passage [SEP], token_type_ids 0/1, "
        "truncated longest-first",
        "max_length": int(config["max_length"]),
        "dimension": 1,
        "pooling": "mean",
        "normalize": False,
        "licence": licence(base),
        "batch_invariant": batch_invariant(runtime_variant),
        "runtime_variant": runtime_variant,
        "build": f"{record['command']} && {export_command}",
        "training": {
            "command": record["command"],
            "config": config["name"],
            "seed": config["seed"],
            "steps": config["steps"],
            "data": record["data"]["files"],
            "versions": record["versions"],
            "dev_sample": {k: round(v, 4) if isinstance(v, float) else v for k, v in torch_dev.items()},
        },
        "artifacts": artifacts,
    }


def upsert_manifest_entry(manifest: Path, entry: dict[str, Any]) -> None:
    """Replace the model's entry where it stands (or append it); every other line, comments included, is
    kept as written. An export never makes its model the default: dev decides that, by hand."""
    if entry.get("default"):
        raise ValueError(f"{entry['name']}: an export does not choose the default model; mark it by hand")
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    block = yaml.safe_dump([entry], sort_keys=False, width=120, allow_unicode=True).splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == f"- name: {entry['name']}"), None)
    if start is None:
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        manifest.write_text("".join([*lines, *block]), encoding="utf-8")
        return
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("- ") or lines[i][:1].isalnum()),
        len(lines),
    )
    manifest.write_text("".join([*lines[:start], *block, *lines[end:]]), encoding="utf-8")


def _shown(path: Path) -> str:
    resolved = path.resolve()
    return resolved.relative_to(REPO_ROOT).as_posix() if resolved.is_relative_to(REPO_ROOT) else str(path)


if __name__ == "__main__":
    sys.exit(main())
