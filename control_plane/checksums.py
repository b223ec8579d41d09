"""The sha256 of a file, read in blocks: how every pinned download (model jars, the Prometheus package)
is checked against its pin."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Final

_BLOCK: Final = 1 << 20


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()
