"""The markdown parity report written by the build, one file per model under model_artifacts/reports/."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from dataclasses import dataclass
from pathlib import Path

from model_artifacts.parity import TOLERANCE, VariantParity


@dataclass(frozen=True)
class VariantResult:
    variant: str
    bytes: int
    sha256: str
    vs_torch_max_abs_diff: float
    vs_torch_min_cosine: float
    sample: VariantParity
    docs_per_s: float
    committed: bool


@dataclass(frozen=True)
class ModelReport:
    name: str
    source: str
    command: str
    n_queries: int
    n_documents: int
    fixed_texts: int
    st_max_abs_diff: float | None
    variants: list[VariantResult]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def versions() -> str:
    names = ("torch", "transformers", "onnx", "onnxruntime", "tokenizers", "sentence-transformers")
    found = []
    for name in names:
        try:
            found.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    return ", ".join(found)


def render(report: ModelReport) -> str:
    lines = [
        f"# Parity report: {report.name}",
        "",
        f"- source: `{report.source}`",
        f"- command: `{report.command}`",
        f"- machine: {machine()} (CPU execution provider)",
        f"- versions: {versions()}",
        "",
        f"## fp32 ONNX vs PyTorch ({report.fixed_texts} fixed short and long texts, one padded batch)",
        "",
        f"Tolerance: max abs diff ≤ {TOLERANCE:g}.",
        "",
        "| variant | max abs diff vs PyTorch | min cosine vs PyTorch |",
        "|---|---|---|",
    ]
    lines += [
        f"| {v.variant} | {v.vs_torch_max_abs_diff:.2e} | {v.vs_torch_min_cosine:.6f} |"
        for v in report.variants
    ]
    if report.st_max_abs_diff is not None:
        lines += [
            "",
            "PyTorch reference vs the sentence-transformers library: "
            f"max abs diff {report.st_max_abs_diff:.2e}.",
        ]
    lines += [
        "",
        "## Variants vs fp32 ONNX on NFCorpus "
        f"({report.n_queries} dev queries, {report.n_documents} documents)",
        "",
        "Cosine over every query and document vector; top-10 overlap = mean share of each query's "
        "fp32 top-10 "
        "(inner product over the sample documents) that the variant also returns.",
        "",
        "| variant | model.onnx bytes | MB | cosine mean | cosine min | top-10 overlap | docs/s "
        "| committed |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in report.variants:
        lines.append(
            f"| {v.variant} | {v.bytes} | {v.bytes / 1e6:.1f} "
            f"| {v.sample.cosine_mean:.6f} | {v.sample.cosine_min:.6f} "
            f"| {v.sample.top10_overlap:.3f} | {v.docs_per_s:.1f} | {'yes' if v.committed else 'no'} |"
        )
    lines += ["", "sha256 of model.onnx:", ""]
    lines += [f"- {v.variant}: `{v.sha256}`" for v in report.variants]
    return "\n".join(lines) + "\n"
