"""A file committed in numbered pieces: split under a size, joined back byte for byte, gaps refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from control_plane.models.parts import (
    COMMIT_LIMIT_BYTES,
    PIECE_BYTES,
    PartsError,
    commit_folder,
    join_folder,
    split_file,
)


def test_pieces_are_at_most_the_limit_and_join_back_to_the_same_bytes(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(bytes(range(256)) * 10)  # 2,560 bytes
    committed = tmp_path / "committed"
    pieces = split_file(source, committed, 1000)
    assert [p.name for p in pieces] == ["model.onnx.part-00", "model.onnx.part-01", "model.onnx.part-02"]
    assert [p.stat().st_size for p in pieces] == [1000, 1000, 560]
    (committed / "tokenizer.json").write_text("{}")
    written = join_folder(committed, tmp_path / "joined")
    assert written == ["model.onnx", "tokenizer.json"]
    assert (tmp_path / "joined" / "model.onnx").read_bytes() == source.read_bytes()
    assert (tmp_path / "joined" / "tokenizer.json").read_text() == "{}"


def test_splitting_again_leaves_no_stale_piece(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"x" * 30)
    split_file(source, tmp_path / "c", 10)
    source.write_bytes(b"y" * 15)
    split_file(source, tmp_path / "c", 10)
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["model.onnx.part-00", "model.onnx.part-01"]
    join_folder(tmp_path / "c", tmp_path / "j")
    assert (tmp_path / "j" / "model.onnx").read_bytes() == b"y" * 15


def test_a_missing_piece_is_named_and_nothing_is_joined_for_it(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"z" * 25)
    pieces = split_file(source, tmp_path / "c", 10)
    pieces[1].unlink()
    with pytest.raises(PartsError, match=r"model\.onnx is missing piece\(s\) \[1\] of 3"):
        join_folder(tmp_path / "c", tmp_path / "j")
    assert not (tmp_path / "j" / "model.onnx").exists()


def test_a_limit_that_would_need_more_than_100_pieces_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "model.onnx"
    source.write_bytes(b"a" * 101)
    with pytest.raises(ValueError, match="needs 101 pieces"):
        split_file(source, tmp_path / "c", 1)
    with pytest.raises(ValueError, match="must be positive"):
        split_file(source, tmp_path / "c", 0)
    with pytest.raises(PartsError, match="not a folder"):
        join_folder(tmp_path / "absent", tmp_path / "j")


def test_a_committed_folder_holds_small_files_whole_and_large_ones_in_pieces(tmp_path: Path) -> None:
    """What the exports commit: joined back, the folder is the source again."""
    source = tmp_path / "int8"
    source.mkdir()
    (source / "model.onnx").write_bytes(b"m" * (COMMIT_LIMIT_BYTES + 1))
    (source / "tokenizer.json").write_text("{}")
    dest = tmp_path / "onnx" / "ce-x"
    dest.mkdir(parents=True)
    (dest / "stale.onnx").write_text("old")  # a previous commit's file does not survive
    assert commit_folder(source, dest) is True
    assert sorted(p.name for p in dest.iterdir()) == [
        "model.onnx.part-00",
        "model.onnx.part-01",
        "tokenizer.json",
    ]
    assert (dest / "model.onnx.part-00").stat().st_size == PIECE_BYTES
    join_folder(dest, tmp_path / "joined")
    assert (tmp_path / "joined" / "model.onnx").read_bytes() == (source / "model.onnx").read_bytes()
    (source / "model.onnx").write_bytes(b"small")
    assert commit_folder(source, dest) is False
    assert sorted(p.name for p in dest.iterdir()) == ["model.onnx", "tokenizer.json"]
