"""Export-time parity, re-run: fp32 ONNX from torch.onnx.export vs PyTorch on the fixed texts (≤ 1e-4).

It needs torch (the ``export`` extra) and the weight packages, which `make test-export` installs; the
default suite checks the committed ONNX files against recorded PyTorch outputs instead. The build command
writes the same figures into model_artifacts/reports/<name>.md.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest
from control_plane.models.runtime import OnnxModel
from control_plane.models.tokenization import BatchTokenizer

pytest.importorskip("torch", reason="the export suite needs the export extra: make test-export")

from model_artifacts import export, sources
from model_artifacts.parity import TOLERANCE, max_abs_diff
from model_artifacts.texts import FIXED_TEXTS


# torch's TorchScript exporter warns about tracing internals of transformers; parity is what is checked.
@pytest.mark.filterwarnings("ignore::Warning")
@pytest.mark.parametrize("name", ["minilm", "splade-tiny"])
def test_fp32_onnx_export_matches_pytorch(name: str, tmp_path: Path) -> None:
    spec = load_manifest(DEFAULT_MANIFEST).model(name)
    missing = sources.missing_packages(spec)
    if missing:
        pytest.fail(f"weights package not installed: {', '.join(missing)} ({spec.source.install})")
    folder = sources.source_folder(spec, tmp_path)
    onnx_path = tmp_path / "model.onnx"
    export.export_onnx(export.load_torch_model(spec, folder), onnx_path)
    tokenizer = BatchTokenizer.from_file(folder / "tokenizer.json", spec.max_length)
    (run,) = tokenizer.runs(FIXED_TEXTS, max_batch=len(FIXED_TEXTS), max_tokens=1 << 30)
    session = OnnxModel(onnx_path, device="cpu")
    produced = np.zeros_like(reference := export.torch_reference(spec, folder, [run], len(FIXED_TEXTS)))
    produced[run.indices] = session.run(run.feeds(session.input_names))
    assert max_abs_diff(produced, reference) <= TOLERANCE
