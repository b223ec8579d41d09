"""The Python ingest path's encoders from settings: the local models' identities are the encoding cache's
keys, and with ``models.encoding_seed`` the seed sits above the cache, serving what its models made and
counting where every encoding came from."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.ingestion.encoding_cache import model_key
from control_plane.ingestion.encoding_seed import EncodingTally, write_seed
from control_plane.ingestion.setup import LocalModels, local_models, python_encoder
from control_plane.models.manifest import load_manifest

SEEDED = "Serious adverse events were reported in 12 patients (8%)."
FRESH = "Inclusion criteria: adults aged 18–65 with type 2 diabetes."


@pytest.fixture(scope="module")
def models() -> LocalModels:
    return local_models(load_settings(LOCAL_FILE, environ={}))


def _settings(seed: Path | str, cache: Path | str = "") -> Settings:
    settings = load_settings(LOCAL_FILE, environ={})
    models = settings.models.model_copy(update={"encoding_seed": str(seed), "encoding_cache_dir": str(cache)})
    return settings.model_copy(update={"models": models})


def test_the_identities_are_the_manifests_pins_and_the_caches_keys(models: LocalModels) -> None:
    manifest = load_manifest()
    for role in ("dense", "sparse"):
        identity = models.identities[role]
        spec = manifest.model(identity.name)
        assert identity.onnx_sha256 == spec.artifacts[spec.runtime_variant].files["model.onnx"].sha256
    assert len(models.identities["dense"].key) == 32
    assert models.identities["dense"].key != models.identities["sparse"].key


def test_the_dense_key_is_the_encoding_caches_model_key() -> None:
    from control_plane.models.dense import DenseEncoder

    encoder = DenseEncoder.load(load_settings(LOCAL_FILE, environ={}).models.dense)
    assert local_models(load_settings(LOCAL_FILE, environ={})).identities["dense"].key == model_key(
        encoder.model
    )


def test_the_seed_serves_its_texts_above_the_cache_and_the_tally_says_so(
    models: LocalModels, tmp_path: Path
) -> None:
    marker = np.full(
        (1, 384), 0.5, dtype=np.float32
    )  # not what the model computes: proves where it came from
    seed = tmp_path / "seed.npz"
    write_seed(seed, models.identities, [SEEDED], marker, [{"seeded": 1.0}])
    tally = EncodingTally()
    encoder, _ = python_encoder(_settings(seed, tmp_path / "cache"), tally=tally)
    first = encoder.vectors([SEEDED, FRESH])
    assert first[0] == {"embedding": [0.5] * 384, "sparse_terms": {"seeded": 1.0}}
    assert first[1]["embedding"] != [0.5] * 384 and "seeded" not in first[1]["sparse_terms"]
    assert (tally.seed, tally.requested, tally.seeded, tally.cached, tally.computed) == (seed, 4, 2, 0, 2)
    again = encoder.vectors([FRESH])
    assert again[0] == first[1]
    assert (tally.requested, tally.seeded, tally.cached, tally.computed) == (6, 2, 2, 2)


def test_a_seed_of_another_model_serves_nothing_and_says_why(
    models: LocalModels, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    seed = tmp_path / "seed.npz"
    other = {"dense": models.identities["sparse"], "sparse": models.identities["sparse"]}
    write_seed(seed, other, [SEEDED], np.full((1, 384), 0.5, dtype=np.float32), [{"seeded": 1.0}])
    tally = EncodingTally()
    with caplog.at_level(logging.WARNING):
        encoder, _ = python_encoder(_settings(seed), tally=tally)
    (out,) = encoder.vectors([SEEDED])
    assert out["embedding"] != [0.5] * 384 and out["sparse_terms"] == {"seeded": 1.0}
    assert (tally.seeded, tally.computed) == (1, 1)
    assert [r.__dict__["role"] for r in caplog.records] == ["dense"]


def test_without_a_seed_or_tally_the_encoders_are_as_before(tmp_path: Path) -> None:
    encoder, _ = python_encoder(_settings(""))
    assert type(encoder.dense).__name__ == "GuardedModel"
    encoder, _ = python_encoder(_settings("", tmp_path / "cache"))
    assert type(encoder.dense).__name__ == "CachedDenseModel"
