"""Which int8 matrix kernels ONNX Runtime runs here: the drift of a dynamically quantised graph from its
fp32 logits depends on it. Without VNNI, x86's u8s8 path sums pairs of products in 16 bits, which saturate
(Intel's and ONNX Runtime's quantisation notes), so the graph drifts further from fp32 than the export
measured on a VNNI CPU; how far depends on the path (AVX-512BW or AVX2 alone)."""

from __future__ import annotations

import platform
from pathlib import Path


def _cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return set()
    line = next((line for line in text.splitlines() if line.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def saturating_u8s8() -> bool:
    """x86 with AVX2 and no VNNI (neither AVX512-VNNI nor AVX-VNNI): the saturating u8s8 kernels."""
    flags = _cpu_flags()
    return platform.machine() == "x86_64" and "avx2" in flags and not any("vnni" in f for f in flags)


def avx2_only_u8s8() -> bool:
    """The saturating kernels without any AVX-512 (the 2-core AMD EPYC CI has run on since 2026-12)."""
    return saturating_u8s8() and not any(f.startswith("avx512") for f in _cpu_flags())
