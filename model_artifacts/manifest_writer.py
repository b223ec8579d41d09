"""Rewrite the ``artifacts`` of one model in manifest.yaml, keeping the header comment and the rest."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import yaml

from control_plane.checksums import sha256_file


def file_digests(folder: Path) -> dict[str, dict[str, Any]]:
    return {
        p.name: {"sha256": sha256_file(p), "bytes": p.stat().st_size}
        for p in sorted(folder.iterdir())
        if p.is_file()
    }


def update_artifacts(manifest: Path, name: str, artifacts: dict[str, dict[str, Any]]) -> None:
    """Merge ``artifacts`` (variant → {path, committed, files}) into model ``name``'s entry."""
    text = manifest.read_text(encoding="utf-8")
    header = "".join(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines(keepends=True)))
    data = yaml.safe_load(text)
    (entry,) = [m for m in data["models"] if m["name"] == name]
    merged = dict(entry.get("artifacts") or {})
    merged.update(artifacts)
    entry["artifacts"] = {variant: merged[variant] for variant in sorted(merged)}
    body = yaml.safe_dump(data, sort_keys=False, width=120, allow_unicode=True)
    manifest.write_text(header + body, encoding="utf-8")
