"""Export a fine-tuned bge-small as the served model ``bge-small-bio``: the publisher's graph, new weights.

``python -m model_artifacts.encoder_tuning.export --run .cache/encoder-tuning/run1 --commit --write-manifest``

The tuned weights are written back into the pinned fp32 graph the tuning started from
(:func:`weights.with_bert_state`), so the served file keeps the publisher's structure, and then quantised
the way the publisher quantised it (onnxruntime dynamic int8, per channel): the same speed as the served
``bge-small`` (an export from PyTorch instead ran at two thirds of it). Parity on the fixed texts, cosine
to the PyTorch model (fp32): the fp32 graph must be within 1e-4, int8 is reported.

Variants go to ``.cache/models/bge-small-bio/<variant>/``. ``--commit`` writes the int8 folder to
model_artifacts/onnx/bge-small-bio/ with model.onnx in pieces under 25 MB each (joined by
``biohybrid models fetch``, control_plane/models/parts.py) and the fp32 graph's vectors of the fixed
texts to model_artifacts/reference/bge-small-bio.npz (for torch-free tests); ``--write-manifest`` writes
the model's artifacts into control_plane/models/manifest.yaml.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.artifacts import ArtifactFiles
from control_plane.models.dense import DenseEncoder
from control_plane.models.loading import LoadedModel
from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest
from control_plane.models.parts import commit_folder
from control_plane.models.runtime import OnnxModel
from control_plane.models.tokenization import BatchTokenizer
from model_artifacts.encoder_tuning.model import (
    INPUTS,
    cls_embeddings,
    load_encoder,
    load_onnx,
    save_onnx,
)
from model_artifacts.encoder_tuning.source import fp32_folder
from model_artifacts.encoder_tuning.weights import with_bert_state
from model_artifacts.manifest_writer import file_digests, update_artifacts
from model_artifacts.quantize import dynamic_int8
from model_artifacts.reranker.model import torch_lib
from model_artifacts.texts import FIXED_TEXTS

PROG = "python -m model_artifacts.encoder_tuning.export"
NAME = "bge-small-bio"
FP32_TOLERANCE = 1e-4
CACHE = REPOSITORY_ROOT / ".cache" / "models" / NAME
COMMITTED = REPOSITORY_ROOT / "model_artifacts" / "onnx" / NAME
REFERENCE = REPOSITORY_ROOT / "model_artifacts" / "reference" / f"{NAME}.npz"
Vectors = npt.NDArray[np.float32]


def build_variants(run: Path, cache: Path = CACHE) -> dict[str, Path]:
    """fp32 (the publisher's graph with the run's weights) and its dynamic int8, each with the tokenizer."""
    source = fp32_folder()
    encoder = load_encoder(run / "final")
    state = {name: value.detach().float().numpy() for name, value in encoder.state_dict().items()}
    graph = with_bert_state(load_onnx(source / "model.onnx"), state)
    folders = {"fp32": cache / "fp32", "int8": cache / "int8"}
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copyfile(source / "tokenizer.json", folder / "tokenizer.json")
    save_onnx(graph, folders["fp32"] / "model.onnx")
    dynamic_int8(folders["fp32"] / "model.onnx", folders["int8"] / "model.onnx")
    return folders


def torch_vectors(run: Path, texts: list[str]) -> Vectors:
    """The PyTorch model's [CLS] vectors in fp32, one text at a time (no padding, no autocast)."""
    torch = torch_lib()
    encoder = load_encoder(run / "final").eval()
    tokenizer = BatchTokenizer.from_file(run / "final" / "tokenizer.json", 512)
    rows = []
    with torch.no_grad():
        for text in texts:
            feeds = tokenizer.runs([text], max_batch=1, max_tokens=1 << 20)[0].feeds(INPUTS)
            rows.append(cls_embeddings(encoder, {k: torch.from_numpy(v) for k, v in feeds.items()}).numpy())
    return np.concatenate(rows).astype(np.float32)


def onnx_vectors(folder: Path, texts: list[str]) -> Vectors:
    """The served runtime's document vectors from ``folder`` (bge-small's pooling, unverified files)."""
    spec = load_manifest().model("bge-small")
    files = ArtifactFiles(NAME, folder.name, folder, folder / "model.onnx", folder / "tokenizer.json")
    loaded = LoadedModel(
        spec=spec,
        files=files,
        session=OnnxModel(files.model, device="cpu"),
        tokenizer=BatchTokenizer.from_file(files.tokenizer, spec.max_length),
    )
    return DenseEncoder(loaded).encode(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True, help="an encoder_tuning run folder (with final/)")
    parser.add_argument("--commit", action="store_true", help="write the int8 pieces and reference vectors")
    parser.add_argument("--write-manifest", action="store_true", help="record the artifacts' digests")
    args = parser.parse_args(argv)
    folders = build_variants(args.run)
    texts = list(FIXED_TEXTS)
    reference = torch_vectors(args.run, texts)
    cosines = {
        variant: np.sum(onnx_vectors(folder, texts) * reference, axis=1)
        for variant, folder in folders.items()
    }
    report = {
        variant: {"min_cosine": float(c.min()), "mean_cosine": float(c.mean())}
        for variant, c in cosines.items()
    }
    print(json.dumps(report, indent=2))
    if 1.0 - report["fp32"]["min_cosine"] > FP32_TOLERANCE:
        print(
            f"error: the fp32 graph is not the PyTorch model (cosine {report['fp32']['min_cosine']:.6f})",
            file=sys.stderr,
        )
        return 1
    artifacts = {
        variant: {
            "path": str(folder.relative_to(REPOSITORY_ROOT)),
            "committed": False,
            "files": file_digests(folder),
        }
        for variant, folder in folders.items()
    }
    if args.commit:
        commit_folder(folders["int8"], COMMITTED)
        np.savez_compressed(REFERENCE, texts=np.array(texts), fp32=onnx_vectors(folders["fp32"], texts))
        print(
            f"committed: {COMMITTED.relative_to(REPOSITORY_ROOT)}, {REFERENCE.relative_to(REPOSITORY_ROOT)}"
        )
    if args.write_manifest:
        update_artifacts(DEFAULT_MANIFEST, NAME, artifacts)
        print(f"manifest: {NAME} artifacts written to {DEFAULT_MANIFEST.relative_to(REPOSITORY_ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
