"""The encoding seed: what it serves equals what was written exactly; it serves a text's encoding only
for the same text and the model that made it (ONNX sha256 and model key), encodes the rest, counts both;
a damaged, foreign or missing file is reported with its name and ignored, never served, never a crash."""

from __future__ import annotations

import io
import json
import logging
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from control_plane.ingestion.encoding_cache import EncodingCache, text_key
from control_plane.ingestion.encoding_seed import (
    EncodingSeed,
    EncodingTally,
    ModelIdentity,
    SeededDenseModel,
    SeededSparseModel,
    SeedError,
    load_seed,
    read_seed,
    seeded_models,
    write_seed,
)

DENSE = ModelIdentity("dense-model", "a" * 64, "k-dense")
SPARSE = ModelIdentity("sparse-model", "b" * 64, "k-sparse")
MODELS = {"dense": DENSE, "sparse": SPARSE}
TEXTS = ["Serious adverse events in 12 patients.", "Inclusion: adults aged 18–65.", "Métformine 500 mg."]
VECTORS = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [1 / 3, 2 / 3, 0.7]], dtype=np.float32)
TERMS = [{"adverse": 1.25, "events": 0.5, "serious": 0.25}, {}, {"mé": 0.75, "##tform": 0.125}]


class FakeDense:
    """A dense model remembering which texts reached it; its rows are all 9s."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self.seen.extend(texts)
        return np.full((len(texts), 3), 9.0, dtype=np.float32)


class FakeSparse:
    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> list[dict[str, float]]:
        self.seen.extend(texts)
        return [{"computed": 9.0} for _ in texts]


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.npz"
    write_seed(path, MODELS, TEXTS, VECTORS, TERMS, {"sources": ["pmc"]})
    return path


def test_what_is_read_back_equals_what_was_written_exactly_in_term_order(seed_file: Path) -> None:
    seed = read_seed(seed_file)
    assert len(seed) == 3 and seed.models == MODELS and seed.made == {"sources": ["pmc"]}
    for text, vector, terms in zip(TEXTS, VECTORS, TERMS, strict=True):
        row = seed.dense_row(text_key(text))
        assert row is not None and row.dtype == np.float32 and row.tobytes() == vector.tobytes()
        served = seed.sparse_map(text_key(text))
        assert served == terms and list(served) == list(terms)  # heaviest first, as the encoder orders
    assert seed.dense_row(text_key("another text")) is None
    assert seed.sparse_map(text_key("another text")) is None


def test_the_writer_leaves_no_temporary_file_and_says_the_size(tmp_path: Path) -> None:
    size = write_seed(tmp_path / "s.npz", MODELS, TEXTS, VECTORS, TERMS)
    assert [p.name for p in tmp_path.iterdir()] == ["s.npz"]
    assert size == (tmp_path / "s.npz").stat().st_size
    assert (tmp_path / "s.npz").stat().st_mode & 0o777 == 0o644


def test_the_writer_refuses_a_missing_role_or_counts_that_differ(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dense, sparse"):
        write_seed(tmp_path / "s.npz", {"dense": DENSE}, TEXTS, VECTORS, TERMS)
    with pytest.raises(ValueError, match="one each"):
        write_seed(tmp_path / "s.npz", MODELS, TEXTS[:2], VECTORS, TERMS)


def test_seeded_texts_are_served_and_only_the_others_reach_the_models(seed_file: Path) -> None:
    tally = EncodingTally()
    dense_model, sparse_model = FakeDense(), FakeSparse()
    dense, sparse = seeded_models(dense_model, sparse_model, seed_file, MODELS, tally)
    texts = [TEXTS[2], "a text the seed does not hold", TEXTS[0]]
    rows = dense.encode(texts)
    assert rows.dtype == np.float32
    assert rows[0].tobytes() == VECTORS[2].tobytes() and rows[2].tobytes() == VECTORS[0].tobytes()
    assert rows[1].tolist() == [9.0, 9.0, 9.0]
    assert sparse.encode(texts) == [TERMS[2], {"computed": 9.0}, TERMS[0]]
    assert dense_model.seen == sparse_model.seen == ["a text the seed does not hold"]
    assert (tally.requested, tally.seeded, tally.cached, tally.computed) == (6, 4, 0, 2)
    assert tally.seed == seed_file
    assert f"4 from the seed {seed_file}, 0 from the encoding cache, 2 computed" in tally.describe()


def test_a_text_that_differs_by_one_character_is_encoded_not_served(seed_file: Path) -> None:
    tally = EncodingTally()
    dense_model = FakeDense()
    dense, _ = seeded_models(dense_model, FakeSparse(), seed_file, MODELS, tally)
    changed = TEXTS[0].replace("12", "13")
    assert dense.encode([changed])[0].tolist() == [9.0, 9.0, 9.0]
    assert dense_model.seen == [changed] and tally.seeded == 0


@pytest.mark.parametrize(
    ("configured", "why"),
    [
        (ModelIdentity("dense-model", "c" * 64, "k-other"), "model.onnx sha256 aaaaaaaaaaaa"),
        (ModelIdentity("dense-model", "a" * 64, "k-other"), "another tokenizer, maximum length or options"),
    ],
)
def test_another_dense_model_gets_no_dense_encodings_and_a_warning_naming_the_file(
    seed_file: Path, configured: ModelIdentity, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    tally = EncodingTally()
    dense_model, sparse_model = FakeDense(), FakeSparse()
    with caplog.at_level(logging.WARNING):
        dense, sparse = seeded_models(
            dense_model, sparse_model, seed_file, {"dense": configured, "sparse": SPARSE}, tally
        )
    assert dense.encode(TEXTS).tolist() == [[9.0] * 3] * 3  # never another model's vectors
    assert sparse.encode(TEXTS) == TERMS  # the sparse model is the one that made them
    assert dense_model.seen == TEXTS and sparse_model.seen == []
    (record,) = caplog.records
    assert "not used for dense" in record.getMessage()
    assert record.__dict__["path"] == str(seed_file) and why in record.__dict__["reason"]


def test_a_seed_of_other_models_for_both_roles_is_not_loaded(
    seed_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    other = {role: ModelIdentity(f"{role}-2", "d" * 64, "k") for role in ("dense", "sparse")}
    with caplog.at_level(logging.WARNING):
        assert load_seed(seed_file, other) is None
    assert len(caplog.records) == 2


def _corrupt(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        path.write_bytes(bytes(data[: len(data) // 2]))
    elif how == "flipped":
        middle = len(data) // 2
        data[middle] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "not an archive":
        path.write_text("hello, I am not a seed")
    elif how == "empty":
        path.write_bytes(b"")


@pytest.mark.parametrize("how", ["truncated", "flipped", "not an archive", "empty"])
def test_a_damaged_seed_is_reported_by_name_and_ignored_never_served(
    seed_file: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    _corrupt(seed_file, how)
    tally = EncodingTally()
    dense_model = FakeDense()
    with caplog.at_level(logging.WARNING):
        dense, _ = seeded_models(dense_model, FakeSparse(), seed_file, MODELS, tally)
    assert dense.encode(TEXTS).tolist() == [[9.0] * 3] * 3
    assert tally.seed is None and tally.seeded == 0 and tally.computed == 3
    (record,) = caplog.records
    assert record.levelno == logging.WARNING and "encoding seed ignored" in record.getMessage()
    assert record.__dict__["path"] == str(seed_file) and record.__dict__["reason"]


def _rewrite(path: Path, **replaced: npt.NDArray[np.generic]) -> None:
    """The archive again with some arrays replaced (a valid zip whose contents were edited)."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays.update(replaced)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    path.write_bytes(buffer.getvalue())


def test_an_array_edited_behind_the_header_is_refused_by_its_digest(seed_file: Path) -> None:
    _rewrite(seed_file, dense=VECTORS * 2)
    with pytest.raises(SeedError, match="differ from the sha256 its header records"):
        read_seed(seed_file)


def test_a_seed_of_another_format_is_refused(seed_file: Path) -> None:
    with np.load(seed_file, allow_pickle=False) as archive:
        header = json.loads(archive["header"].tobytes())
    header["format"] = 99
    _rewrite(seed_file, header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8))
    with pytest.raises(SeedError, match="format 99"):
        read_seed(seed_file)


def test_a_seed_without_a_member_is_refused(seed_file: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial.npz"
    with zipfile.ZipFile(seed_file) as source, zipfile.ZipFile(partial, "w") as target:
        for name in source.namelist():
            if name != "dense.npy":
                target.writestr(name, source.read(name))
    with pytest.raises(SeedError, match="not a readable seed archive"):
        read_seed(partial)


def test_a_missing_seed_file_is_a_warning_naming_it(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert load_seed(tmp_path / "nowhere.npz", MODELS) is None
    assert caplog.records[0].__dict__["path"] == str(tmp_path / "nowhere.npz")
    assert "cannot read it" in caplog.records[0].__dict__["reason"]


def test_without_a_seed_every_text_is_counted_as_not_seeded() -> None:
    tally = EncodingTally()
    dense, sparse = seeded_models(FakeDense(), FakeSparse(), None, MODELS, tally)
    dense.encode(TEXTS)
    sparse.encode(TEXTS[:1])
    assert (tally.requested, tally.seeded, tally.computed) == (4, 0, 4)
    assert "the seed (none loaded)" in tally.describe()


def test_an_empty_call_asks_the_model_for_its_empty_shape(seed_file: Path) -> None:
    seed = read_seed(seed_file)
    assert SeededDenseModel(FakeDense(), seed, EncodingTally()).encode([]).shape == (0, 3)
    assert SeededSparseModel(FakeSparse(), seed, EncodingTally()).encode([]) == []


def test_the_tally_counts_the_caches_hits_below_the_seed(tmp_path: Path) -> None:
    cache = EncodingCache(tmp_path / "cache")
    cache.hits = 5
    tally = EncodingTally(seed=tmp_path / "s.npz", requested=10, seeded=3, cache=cache)
    assert (tally.cached, tally.computed) == (5, 2)
    cache.close()


def test_a_seed_restricted_to_one_role_serves_only_that_role(seed_file: Path) -> None:
    seed: EncodingSeed = read_seed(seed_file).for_roles(frozenset({"sparse"}))
    assert seed.dense_row(text_key(TEXTS[0])) is None
    assert seed.sparse_map(text_key(TEXTS[0])) == TERMS[0]
