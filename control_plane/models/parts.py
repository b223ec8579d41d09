"""A model file committed in pieces: ``model.onnx.part-00``, ``model.onnx.part-01`` ... joined at install.

A model trained here whose int8 file is larger than one committed file may be (25 MB) is committed as
consecutive byte ranges; ``biohybrid models fetch`` joins them into the model cache, where the manifest's
sha256 of the whole file decides whether it is served. Splitting and joining are byte-exact and need
nothing beyond the standard library.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from control_plane.errors import BiohybridError

PART_SUFFIX = ".part-"
COMMIT_LIMIT_BYTES = 25_000_000
"""The most a committed file may be."""
PIECE_BYTES = 24_000_000
"""The size a larger file is committed in: under the limit."""
_PART = re.compile(r"^(?P<name>.+)\.part-(?P<number>\d{2})$")


class PartsError(BiohybridError, ValueError):
    """The committed pieces of a file are missing or out of sequence; the message names the file."""


def split_file(source: Path, dest: Path, max_bytes: int) -> list[Path]:
    """Write ``source`` into ``dest`` as numbered pieces of at most ``max_bytes`` each; return them."""
    if max_bytes <= 0:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    count = -(-source.stat().st_size // max_bytes)
    if count > 100:
        raise ValueError(f"{source} needs {count} pieces of {max_bytes} bytes: at most 100 are named")
    dest.mkdir(parents=True, exist_ok=True)
    for stale in dest.glob(f"{source.name}{PART_SUFFIX}*"):
        stale.unlink()
    pieces: list[Path] = []
    with source.open("rb") as reader:
        while chunk := reader.read(max_bytes):
            piece = dest / f"{source.name}{PART_SUFFIX}{len(pieces):02d}"
            piece.write_bytes(chunk)
            pieces.append(piece)
    return pieces


def commit_folder(source: Path, dest: Path) -> bool:
    """Make ``dest`` hold ``source``'s files, each one over the commit limit as pieces (what
    :func:`join_folder` turns back into ``source``); returns whether any file was split."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    split = False
    for path in sorted(p for p in source.iterdir() if p.is_file()):
        if path.stat().st_size > COMMIT_LIMIT_BYTES:
            split_file(path, dest, PIECE_BYTES)
            split = True
        else:
            shutil.copyfile(path, dest / path.name)
    return split


def join_folder(source: Path, dest: Path) -> list[str]:
    """Copy ``source`` to ``dest``: pieces joined into their whole file, other files as they are.

    Returns the names written. Pieces must be numbered from 00 without a gap, or nothing is written for
    that file and :class:`PartsError` says which piece is missing.
    """
    if not source.is_dir():
        raise PartsError(f"{source} is not a folder of committed model files")
    pieces: dict[str, dict[int, Path]] = {}
    whole: list[Path] = []
    for path in sorted(source.iterdir()):
        match = _PART.match(path.name)
        if match:
            pieces.setdefault(match["name"], {})[int(match["number"])] = path
        elif path.is_file():
            whole.append(path)
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for name, numbered in sorted(pieces.items()):
        expected = list(range(len(numbered)))
        if sorted(numbered) != expected:
            missing = sorted(set(range(max(numbered) + 1)) - set(numbered))
            raise PartsError(f"{source}: {name} is missing piece(s) {missing} of {max(numbered) + 1}")
        with (dest / name).open("wb") as out:
            for number in expected:
                with numbered[number].open("rb") as piece:
                    shutil.copyfileobj(piece, out, 1 << 20)
        written.append(name)
    for path in whole:
        shutil.copyfile(path, dest / path.name)
        written.append(path.name)
    return written
