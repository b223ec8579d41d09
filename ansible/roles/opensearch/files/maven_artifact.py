#!/usr/bin/env python3
"""Fetch a Maven Central artifact with the ordinary Maven client and accept it only if its sha256 equals
the pin committed in the repository.

Why not `mvn -C`: the registry these machines reach serves some artifacts (the OpenSearch plugin zips)
with no .sha1/.md5 files, so Maven's own checksum policy either fails on every fetch (-C) or checks
nothing. The pin is what we trust; Maven is only the transport.

  fetch   DEST/<artifactId>-<version>.<type> holds the pinned bytes when this exits 0. A cached file
          that does not match is deleted and fetched again; if the local Maven repository holds the same
          bad copy, one more fetch goes through a fresh, throw-away local repository. A file that still
          does not match is deleted and the exit status is 1, with a message naming the artifact, the
          expected and the actual digest. Prints one JSON line: {"changed": bool, "path": ..., "sha256": ...}.
  pin     after a version bump (`make pin-artifacts`): fetch every artifact the role's defaults name
          for their pinned version into a temporary folder and rewrite the pins file with their sha256.

`fetch` uses the standard library only: the Ansible role runs it on the target host with that host's
Python. `pin` reads the role's YAML and runs where PyYAML is installed (the project's virtualenv).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"


class PinMismatchError(Exception):
    """The artifact's bytes are not the pinned ones."""


@dataclass(frozen=True)
class Coordinates:
    group_id: str
    artifact_id: str
    version: str
    packaging: str

    @classmethod
    def parse(cls, text: str) -> Coordinates:
        parts = text.split(":")
        if len(parts) != 4 or not all(parts):
            raise ValueError(f"coordinates must be groupId:artifactId:version:type, got {text!r}")
        return cls(*parts)

    @property
    def file_name(self) -> str:
        """The name `dependency:copy` gives the file."""
        return f"{self.artifact_id}-{self.version}.{self.packaging}"

    def __str__(self) -> str:
        return f"{self.group_id}:{self.artifact_id}:{self.version}:{self.packaging}"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def mismatch_message(coordinates: Coordinates, path: Path, expected: str, actual: str) -> str:
    return (
        f"sha256 mismatch for {coordinates} ({path}): expected {expected}, got {actual}. "
        "The file was deleted. If the pin is right, the registry or a cache served other bytes: delete "
        f"{coordinates.group_id.replace('.', '/')}/{coordinates.artifact_id}/{coordinates.version}/ from "
        "your Maven local repository and run again. If the version was bumped, recompute the pins "
        "(make pin-artifacts)."
    )


def maven_copy(coordinates: Coordinates, dest: Path, maven: str, local_repository: Path | None) -> None:
    """`mvn dependency:copy` without -C: integrity is checked against the pin afterwards."""
    command = [
        maven,
        "-B",
        "-q",
        f"{DEPENDENCY_PLUGIN}:copy",
        f"-Dartifact={coordinates}",
        f"-DoutputDirectory={dest}",
    ]
    if local_repository is not None:
        command.append(f"-Dmaven.repo.local={local_repository}")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        output = (result.stdout + result.stderr).strip()[-2000:]
        raise RuntimeError(f"mvn could not fetch {coordinates} (exit {result.returncode}): {output}")


def matches(path: Path, expected: str) -> tuple[bool, str]:
    actual = sha256_of(path)
    return actual == expected, actual


def fetch(coordinates: Coordinates, expected: str, dest: Path, maven: str = "mvn") -> bool:
    """Make ``dest/<file>`` hold the pinned bytes; True when something was downloaded or replaced."""
    expected = expected.lower()
    path = dest / coordinates.file_name
    if path.exists():
        ok, actual = matches(path, expected)
        if ok:
            return False
        print(mismatch_message(coordinates, path, expected, actual) + " Fetching it again.", file=sys.stderr)
        path.unlink()
    dest.mkdir(parents=True, exist_ok=True)
    maven_copy(coordinates, dest, maven, None)
    ok, actual = matches(path, expected)
    if ok:
        return True
    path.unlink()
    # The local repository may hold the bad copy: fetch once more around it.
    with tempfile.TemporaryDirectory(prefix="maven-refetch-") as fresh:
        maven_copy(coordinates, dest, maven, Path(fresh))
    ok, actual = matches(path, expected)
    if ok:
        return True
    path.unlink()
    raise PinMismatchError(mismatch_message(coordinates, path, expected, actual))


def role_artifacts(defaults: dict[str, object]) -> tuple[str, dict[str, Coordinates]]:
    """The pinned version and, by groupId:artifactId, the coordinates of every zip the role's maven
    source installs (the integ-test-zip at the version, each plugin at version + ".0", as the role's
    `opensearch_plugin_version` says)."""
    version = str(defaults["opensearch_version"])
    out = {
        str(defaults["opensearch_distribution_artifact"]): Coordinates.parse(
            f"{defaults['opensearch_distribution_artifact']}:{version}:zip"
        )
    }
    for plugin in defaults["opensearch_plugins"]:  # type: ignore[attr-defined]
        out[plugin["artifact"]] = Coordinates.parse(f"{plugin['artifact']}:{version}.0:zip")
    return version, out


def render_pins(version: str, pins: dict[str, str], kept: dict[str, dict[str, str]] | None = None) -> str:
    """The pins file: ``pins`` for ``version``, plus the other versions' pins in ``kept`` unchanged
    (the secured test node of inventories/local-secure runs another version than the main node)."""
    lines = [
        "---",
        "# sha256 of every artifact the opensearch role fetches from Maven Central (maven source), by",
        "# OpenSearch version and groupId:artifactId (module jars: groupId:artifactId:version). The role",
        "# refuses a file that does not match.",
        "# Written by `make pin-artifacts` (files/maven_artifact.py pin) after a version bump; the pins",
        "# of other versions are kept.",
        "opensearch_artifact_sha256:",
    ]
    versions = {**(kept or {}), version: pins}
    for name in sorted(versions):
        lines.append(f'  "{name}":')
        lines += [f'    "{artifact}": "{digest}"' for artifact, digest in sorted(versions[name].items())]
    return "\n".join(lines) + "\n"


def pin(defaults_file: Path, pins_file: Path, maven: str = "mvn") -> dict[str, str]:
    import yaml  # only here: `fetch` runs on hosts without PyYAML

    version, artifacts = role_artifacts(yaml.safe_load(defaults_file.read_text()))
    pins = {}
    with tempfile.TemporaryDirectory(prefix="maven-pins-") as folder:
        for artifact, coordinates in artifacts.items():
            maven_copy(coordinates, Path(folder), maven, None)
            pins[artifact] = sha256_of(Path(folder) / coordinates.file_name)
            print(f"{coordinates}  {pins[artifact]}", file=sys.stderr)
    existing = yaml.safe_load(pins_file.read_text()) if pins_file.exists() else None
    kept = {
        str(name): dict(digests)
        for name, digests in ((existing or {}).get("opensearch_artifact_sha256") or {}).items()
        if str(name) != version
    }
    pins_file.write_text(render_pins(version, pins, kept))
    return pins


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    fetch_parser = sub.add_parser("fetch", help="fetch one artifact into DEST and check it against its pin")
    fetch_parser.add_argument("coordinates", help="groupId:artifactId:version:type")
    fetch_parser.add_argument("--sha256", required=True, help="the pinned digest (64 hex digits)")
    fetch_parser.add_argument("--dest", required=True, type=Path, help="folder the file is copied into")
    fetch_parser.add_argument("--maven", default="mvn", help="the Maven executable (default: mvn)")
    pin_parser = sub.add_parser("pin", help="rewrite the pins file for the version the role's defaults pin")
    pin_parser.add_argument("--defaults", required=True, type=Path, help="the role's defaults/main.yml")
    pin_parser.add_argument("--pins", required=True, type=Path, help="the pins file to write")
    pin_parser.add_argument("--maven", default="mvn")
    args = parser.parse_args(argv)
    try:
        if args.command == "pin":
            pin(args.defaults, args.pins, args.maven)
            print(f"wrote {args.pins}")
            return 0
        coordinates = Coordinates.parse(args.coordinates)
        if len(args.sha256) != 64:
            raise ValueError(f"--sha256 must be 64 hex digits, got {args.sha256!r} for {coordinates}")
        changed = fetch(coordinates, args.sha256, args.dest, args.maven)
        print(
            json.dumps(
                {"changed": changed, "path": str(args.dest / coordinates.file_name), "sha256": args.sha256}
            )
        )
        return 0
    except (PinMismatchError, RuntimeError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
