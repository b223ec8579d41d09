"""The role's fetch script against the real Maven client and registry: a corrupted cached zip is
detected and fetched again, and a file that does not match its pin is refused and deleted with a
message naming the artifact and both digests (job-scheduler: the smallest of the pinned zips)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.integration

ROLE = Path(__file__).resolve().parents[2] / "ansible" / "roles" / "opensearch"
SCRIPT = ROLE / "files" / "maven_artifact.py"
VERSION = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())["opensearch_version"]
ARTIFACT = "org.opensearch.plugin:opensearch-job-scheduler"
COORDINATES = f"{ARTIFACT}:{VERSION}.0:zip"
PIN = yaml.safe_load((ROLE / "vars" / "artifact_pins.yml").read_text())["opensearch_artifact_sha256"][
    VERSION
][ARTIFACT]
FILE_NAME = f"opensearch-job-scheduler-{VERSION}.0.zip"


def _fetch(dest: Path, sha256: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "fetch", COORDINATES, "--sha256", sha256, "--dest", str(dest)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_a_corrupted_cached_zip_is_detected_and_fetched_again(tmp_path: Path) -> None:
    cached = tmp_path / FILE_NAME
    cached.write_bytes(b"PK\x03\x04 not the zip that was pinned")
    result = _fetch(tmp_path, PIN)
    assert result.returncode == 0, result.stderr
    assert f"sha256 mismatch for {COORDINATES}" in result.stderr and "Fetching it again" in result.stderr
    assert '"changed": true' in result.stdout
    again = _fetch(tmp_path, PIN)  # now it matches: nothing to do
    assert again.returncode == 0 and '"changed": false' in again.stdout


def test_a_file_that_does_not_match_its_pin_is_refused_and_deleted(tmp_path: Path) -> None:
    wrong = "0" * 64
    result = _fetch(tmp_path, wrong)
    assert result.returncode == 1
    assert f"sha256 mismatch for {COORDINATES}" in result.stderr
    assert f"expected {wrong}, got {PIN}" in result.stderr
    assert not (tmp_path / FILE_NAME).exists()
