"""The machine a report's figures come from, as every report's header states it: a figure without its
machine cannot be compared with another."""

from __future__ import annotations

import os
import platform
from pathlib import Path

CPU_INFO = Path("/proc/cpuinfo")


def cpu_model(cpu_info: Path = CPU_INFO) -> str:
    """The CPU's model name (``/proc/cpuinfo``; where there is none, what ``platform`` knows)."""
    try:
        lines = cpu_info.read_text(encoding="utf-8").splitlines()
    except OSError:
        return platform.processor() or "unknown CPU"
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("model name")), "unknown CPU")


def describe_machine(extra: str = "") -> str:
    """Host, OS, CPU cores and model, and Python (plus e.g. the OpenSearch version)."""
    parts = [
        platform.node() or "unknown host",
        platform.platform(),
        f"{os.cpu_count()} CPU cores ({cpu_model()})",
        f"Python {platform.python_version()}",
    ]
    return ", ".join([*parts, extra] if extra else parts)
