"""Export a fine-tuned SPLADE-tiny as the served model ``splade-tiny-bio``, with parity to PyTorch.

``python -m model_artifacts.sparse_tuning.export --model .cache/sparse-tuning/run1/final --commit
--write-manifest``

The same export as the base model's (``model_artifacts.build``: the SPLADE wrapper traced to ONNX opset
17, the tied embedding and decoder matrices stored once): only the weights differ. Parity on the fixed
texts: the fp32 graph through the service's ``SparseEncoder`` against the textbook SPLADE formula in
PyTorch must agree within 1e-4 (the fp32 variant is the served one, 17.7 MB: the int8 variants lose 4%
of the top 10, ``model_artifacts/reports/splade-tiny.md``). ``--commit`` copies the folder to
model_artifacts/onnx/splade-tiny-bio/ and the PyTorch outputs to model_artifacts/reference/ (for torch-free
tests); ``--write-manifest`` records the files' digests in control_plane/models/manifest.yaml.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts import export
from model_artifacts.build import _encode_texts, _write_config, save_reference
from model_artifacts.manifest_writer import file_digests, update_artifacts
from model_artifacts.sparse_tuning.model import BASE_MODEL, TOKENIZER_FILE
from model_artifacts.texts import FIXED_TEXTS

PROG = "python -m model_artifacts.sparse_tuning.export"
NAME = "splade-tiny-bio"
TOLERANCE = 1e-4
CACHE = REPOSITORY_ROOT / ".cache" / "models" / NAME / "fp32"
COMMITTED = REPOSITORY_ROOT / "model_artifacts" / "onnx" / NAME


def build_fp32(model: Path, target: Path = CACHE) -> Path:
    """The fp32 folder (model.onnx, tokenizer.json, config.json) of the run's weights at ``model``."""
    from model_artifacts import quantize  # onnx, the export extra

    spec = replace(load_manifest().model(BASE_MODEL), name=NAME)
    torch_model = export.load_torch_model(spec, model)
    folded = target.parent / "export" / "model.onnx"
    export.export_onnx(torch_model, folded)
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    quantize.share_transposed_duplicates(folded, target / "model.onnx")
    shutil.rmtree(folded.parent)
    shutil.copyfile(model / TOKENIZER_FILE, target / TOKENIZER_FILE)
    _write_config(spec, "fp32", torch_model, target / "config.json")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", type=Path, required=True, help="a sparse_tuning run's final/ or step folder"
    )
    parser.add_argument(
        "--commit", action="store_true", help="copy the fp32 folder and the reference outputs"
    )
    parser.add_argument("--write-manifest", action="store_true", help="record the artifacts' digests")
    args = parser.parse_args(argv)
    spec = replace(load_manifest().model(BASE_MODEL), name=NAME)
    folder = build_fp32(args.model)
    tokenizer = BatchTokenizer.from_file(folder / TOKENIZER_FILE, spec.max_length)
    texts = list(FIXED_TEXTS)
    runs = tokenizer.runs(texts, max_batch=len(texts), max_tokens=1 << 30)
    reference = export.torch_reference(spec, args.model, runs, len(texts))
    served = _encode_texts(spec, folder, tokenizer, texts, max_batch=len(texts))
    difference = float(np.abs(served - reference).max())
    print(
        json.dumps(
            {"fp32_max_abs_diff_vs_torch": difference, "bytes": (folder / "model.onnx").stat().st_size}
        )
    )
    if difference > TOLERANCE:
        print(
            f"error: the fp32 graph differs from PyTorch by {difference:.2e} (> {TOLERANCE})", file=sys.stderr
        )
        return 1
    if not args.commit:
        return 0
    shutil.rmtree(COMMITTED, ignore_errors=True)
    shutil.copytree(folder, COMMITTED)
    save_reference(NAME, reference)
    print(f"committed: {COMMITTED.relative_to(REPOSITORY_ROOT)}")
    if args.write_manifest:
        artifacts = {
            "fp32": {
                "path": str(COMMITTED.relative_to(REPOSITORY_ROOT)),
                "committed": True,
                "files": file_digests(COMMITTED),
            }
        }
        update_artifacts(DEFAULT_MANIFEST, NAME, artifacts)
        print(f"manifest: {NAME} artifacts written to {DEFAULT_MANIFEST.relative_to(REPOSITORY_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
