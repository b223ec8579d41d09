"""The machine line every report's header carries."""

from __future__ import annotations

from pathlib import Path

from control_plane.reports.machine import cpu_model, describe_machine


def test_machine_description_names_cores_model_and_python() -> None:
    text = describe_machine("OpenSearch 3.6.0")
    assert "CPU cores (" in text and "Python 3." in text and text.endswith("OpenSearch 3.6.0")


def test_the_cpu_model_is_read_from_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC 9454P\n", encoding="utf-8")
    assert cpu_model(info) == "AMD EPYC 9454P"
    info.write_text("processor\t: 0\n", encoding="utf-8")
    assert cpu_model(info) == "unknown CPU"
    assert cpu_model(tmp_path / "absent")  # no cpuinfo: what platform knows, never an error
