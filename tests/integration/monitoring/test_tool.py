"""The Prometheus fetch on a package built here with dpkg-deb (the same path as the real one, from a
file:// URL so nothing leaves the machine): a matching sha256 is unpacked once and reused, a mismatch is
refused and nothing is unpacked."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from control_plane.monitoring.tool import PrometheusFetchError, fetch_prometheus


def _package(tmp_path: Path) -> Path:
    root = tmp_path / "build"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: biohybrid-fake-prometheus\nVersion: 1.0\nArchitecture: all\n"
        "Maintainer: tests <t@example.org>\nDescription: two scripts\n"
    )
    (root / "usr" / "bin").mkdir(parents=True)
    for name in ("prometheus", "promtool"):
        script = root / "usr" / "bin" / name
        script.write_text(f"#!/bin/sh\necho {name}\n")
        script.chmod(0o755)
    deb = tmp_path / "biohybrid-fake-prometheus_1.0_all.deb"
    subprocess.run(["dpkg-deb", "--build", str(root), str(deb)], check=True, capture_output=True)
    return deb


def _pin(deb: Path, sha256: str) -> dict[str, Any]:
    # A package name apt does not know: apt-get download fails and the URL is used.
    return {
        "package": "biohybrid-fake-prometheus",
        "version": "1.0",
        "architecture": "all",
        "url": deb.as_uri(),
        "sha256": sha256,
    }


def test_a_verified_package_is_unpacked_once(tmp_path: Path) -> None:
    deb = _package(tmp_path)
    pin = _pin(deb, hashlib.sha256(deb.read_bytes()).hexdigest())
    tool = fetch_prometheus(tmp_path / "tools", pin)
    assert subprocess.run([tool.promtool], capture_output=True, text=True, check=True).stdout == "promtool\n"
    deb.unlink()  # a second call finds the unpacked tool and downloads nothing
    assert fetch_prometheus(tmp_path / "tools", pin) == tool


def test_a_sha256_mismatch_is_refused(tmp_path: Path) -> None:
    deb = _package(tmp_path)
    with pytest.raises(PrometheusFetchError, match="does not match the pin"):
        fetch_prometheus(tmp_path / "tools", _pin(deb, "0" * 64))
    assert not (tmp_path / "tools" / "1.0").exists()
