"""Rewrite the ``artifacts`` of one model in manifest.yaml, keeping every other line (and comment) as is."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from control_plane.checksums import sha256_file

_ENTRY = re.compile(r"^- name: ", re.MULTILINE)
_ARTIFACTS = re.compile(r"^  artifacts:\n", re.MULTILINE)


def file_digests(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def update_artifacts(manifest: Path, name: str, artifacts: dict[str, dict[str, Any]]) -> None:
    """Merge ``artifacts`` (variant → {path, committed, files}) into model ``name``'s entry.

    Only the entry's ``artifacts:`` block is rewritten (it is the last key of an entry, as the writer
    leaves it); the hand-written keys and comments around it stay byte for byte.
    """
    text = manifest.read_text(encoding="utf-8")
    (entry,) = [m for m in yaml.safe_load(text)["models"] if m["name"] == name]
    merged = {**(entry.get("artifacts") or {}), **artifacts}
    block = yaml.safe_dump(
        {"artifacts": {variant: merged[variant] for variant in sorted(merged)}},
        sort_keys=False,
        width=120,
        allow_unicode=True,
    )
    indented = "".join(f"  {line}" for line in block.splitlines(keepends=True))
    start = text.index(f"- name: {name}\n")
    following = _ENTRY.search(text, start + 1)
    end = following.start() if following else len(text)
    found = _ARTIFACTS.search(text, start, end)
    cut = found.start() if found else end
    manifest.write_text(text[:cut] + indented + text[end:], encoding="utf-8")
