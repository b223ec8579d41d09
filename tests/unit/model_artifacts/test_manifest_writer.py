"""The manifest writer replaces one entry's artifacts and leaves every other line, comments included."""

from __future__ import annotations

from pathlib import Path

import yaml

from model_artifacts.manifest_writer import update_artifacts

MANIFEST = """# header comment
version: 1
models:
- name: a
  role: dense
  # why a is batched one text at a time
  batch_invariant: false
  artifacts:
    int8:
      path: old/a
      committed: false
      files: {}
- name: b
  role: rerank
  # b's comment
  build: make b
"""


def test_only_the_named_entrys_artifacts_change(tmp_path: Path) -> None:
    path = tmp_path / "manifest.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    files = {"model.onnx": {"sha256": "ab" * 32, "bytes": 3}}
    update_artifacts(path, "a", {"fp32": {"path": "new/a", "committed": True, "files": files}})
    text = path.read_text(encoding="utf-8")
    assert "  # why a is batched one text at a time\n" in text and "  # b's comment\n" in text
    assert text.startswith("# header comment\n")
    data = yaml.safe_load(text)
    a, b = data["models"]
    assert list(a["artifacts"]) == ["fp32", "int8"]  # merged, sorted
    assert a["artifacts"]["int8"]["path"] == "old/a" and a["artifacts"]["fp32"]["files"] == files
    assert b == {"name": "b", "role": "rerank", "build": "make b"}


def test_an_entry_without_artifacts_gets_them_at_its_end(tmp_path: Path) -> None:
    path = tmp_path / "manifest.yaml"
    path.write_text(MANIFEST, encoding="utf-8")
    update_artifacts(path, "b", {"int8": {"path": "b", "committed": False, "files": {}}})
    text = path.read_text(encoding="utf-8")
    tail = (
        "  build: make b\n  artifacts:\n    int8:\n      path: b\n      committed: false\n      files: {}\n"
    )
    assert text.endswith(tail)
    assert yaml.safe_load(text)["models"][0]["artifacts"]["int8"]["path"] == "old/a"
