"""The sha256 pins cover exactly what the opensearch role fetches, and the fetch script's pure parts."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import jinja2
import pytest
import yaml

ROLE = Path(__file__).resolve().parents[3] / "ansible" / "roles" / "opensearch"
DEFAULTS = yaml.safe_load((ROLE / "defaults" / "main.yml").read_text())
PINS = yaml.safe_load((ROLE / "vars" / "artifact_pins.yml").read_text())["opensearch_artifact_sha256"]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("maven_artifact", ROLE / "files" / "maven_artifact.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["maven_artifact"] = module
    spec.loader.exec_module(module)
    return module


maven_artifact = _script()


def _role_list() -> list[str]:
    """opensearch_maven_artifacts as the role evaluates it (the defaults' Jinja expression, rendered)."""
    rendered = jinja2.Environment().from_string(DEFAULTS["opensearch_maven_artifacts"]).render(**DEFAULTS)
    return list(ast.literal_eval(rendered))


def test_every_artifact_the_role_fetches_has_a_pin_at_the_pinned_version() -> None:
    version = DEFAULTS["opensearch_version"]
    fetched = _role_list()
    assert fetched[0] == "org.opensearch.distribution.integ-test-zip:opensearch"
    assert set(fetched[1:]) == {p["artifact"] for p in DEFAULTS["opensearch_plugins"]}
    assert set(PINS[version]) == set(fetched)  # nothing unpinned, nothing pinned that is not fetched
    assert all(len(d) == 64 and int(d, 16) >= 0 for d in PINS[version].values())


def test_the_pin_command_derives_the_same_coordinates_as_the_role() -> None:
    version, artifacts = maven_artifact.role_artifacts(DEFAULTS)
    assert version == DEFAULTS["opensearch_version"]
    assert list(artifacts) == _role_list()
    assert (
        str(artifacts["org.opensearch.plugin:neural-search"])
        == f"org.opensearch.plugin:neural-search:{version}.0:zip"
    )
    assert (
        artifacts["org.opensearch.distribution.integ-test-zip:opensearch"].file_name
        == f"opensearch-{version}.zip"
    )


def test_the_rendered_pins_file_reads_back_as_written() -> None:
    pins = {"g:a": "0" * 64, "g:b": "f" * 64}
    assert yaml.safe_load(maven_artifact.render_pins("9.9.9", pins)) == {
        "opensearch_artifact_sha256": {"9.9.9": pins}
    }


def test_the_install_task_reads_the_pins_and_fetches_through_the_script() -> None:
    tasks = yaml.safe_load((ROLE / "tasks" / "install_maven.yml").read_text())
    fetch = next(t for t in tasks if "ansible.builtin.script" in t)
    assert fetch["loop"] == "{{ opensearch_maven_artifacts }}"
    assert "maven_artifact.py fetch" in fetch["ansible.builtin.script"]["cmd"]
    assert "opensearch_artifact_sha256[opensearch_version][item]" in fetch["ansible.builtin.script"]["cmd"]
    assert not any("-C" in str(t) for t in tasks if "ansible.builtin.command" in t)


def test_coordinates_are_parsed_strictly_and_named_like_maven_copies_them() -> None:
    coordinates = maven_artifact.Coordinates.parse("org.opensearch.plugin:opensearch-knn:3.6.0.0:zip")
    assert coordinates.file_name == "opensearch-knn-3.6.0.0.zip"
    with pytest.raises(ValueError, match="groupId:artifactId:version:type"):
        maven_artifact.Coordinates.parse("org.opensearch.plugin:opensearch-knn:3.6.0.0")


def test_sha256_of_reads_the_whole_file(tmp_path: Path) -> None:
    data = b"x" * (3 << 20) + b"tail"
    (tmp_path / "f").write_bytes(data)
    assert maven_artifact.sha256_of(tmp_path / "f") == hashlib.sha256(data).hexdigest()


def test_the_mismatch_message_names_artifact_expected_actual_and_the_fix() -> None:
    coordinates = maven_artifact.Coordinates.parse("org.opensearch.plugin:opensearch-knn:3.6.0.0:zip")
    message = maven_artifact.mismatch_message(coordinates, Path("/c/x.zip"), "a" * 64, "b" * 64)
    for part in (
        str(coordinates),
        "a" * 64,
        "b" * 64,
        "org/opensearch/plugin/opensearch-knn/3.6.0.0/",
        "pin-artifacts",
    ):
        assert part in message


def test_rewriting_the_pins_keeps_the_other_versions() -> None:
    kept = {"2.19.1": {"g:c": "1" * 64}}
    pins = {"g:a": "0" * 64}
    assert yaml.safe_load(maven_artifact.render_pins("9.9.9", pins, kept)) == {
        "opensearch_artifact_sha256": {"9.9.9": pins, "2.19.1": kept["2.19.1"]}
    }
