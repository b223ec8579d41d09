"""ONNX Runtime sessions: the CUDA execution provider when this onnxruntime build offers it, else CPU.

The CPU wheel (`onnxruntime`) is the declared dependency; installing `onnxruntime-gpu` instead makes the
same code run on a GPU with no change. ``BIOHYBRID_ORT_DEVICE=cpu`` forces CPU on a GPU machine.
``BIOHYBRID_ORT_THREADS=N`` sets the intra-op threads of every session that asks for the default (0):
where several processes encode on the same cores at once (two test workers, an ingest beside the
inference service), one thread each beats ONNX Runtime's one-per-core default, which oversubscribes
the cores (the test suite's two xdist workers set 1: tests/conftest.py).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Literal

import numpy as np
import numpy.typing as npt
import onnxruntime as ort  # type: ignore[import-untyped]

from control_plane.models.tokenization import IntArray

DEVICE_ENV_VAR = "BIOHYBRID_ORT_DEVICE"
THREADS_ENV_VAR = "BIOHYBRID_ORT_THREADS"
CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
Device = Literal["auto", "cpu", "cuda"]

log = logging.getLogger(__name__)


def select_providers(device: Device = "auto") -> list[str]:
    """Execution providers in preference order for ``device`` ("auto" honours $BIOHYBRID_ORT_DEVICE)."""
    if device == "auto":
        device = os.environ.get(DEVICE_ENV_VAR, "auto")  # type: ignore[assignment]
    available = set(ort.get_available_providers())
    if device == "cpu":
        return [CPU]
    if device == "cuda" and CUDA not in available:
        raise RuntimeError(f"{CUDA} is not available in this onnxruntime build (install onnxruntime-gpu)")
    return [CUDA, CPU] if CUDA in available else [CPU]


def session_threads() -> int:
    """The default intra-op thread count: $BIOHYBRID_ORT_THREADS, else 0 (ONNX Runtime's one per core)."""
    raw = os.environ.get(THREADS_ENV_VAR, "").strip()
    if not raw:
        return 0
    if not raw.isdigit():
        raise ValueError(f"${THREADS_ENV_VAR} must be a whole number (0: one thread per core), got {raw!r}")
    return int(raw)


class OnnxModel:
    """A loaded ONNX graph with one float output (the graph does pooling itself)."""

    def __init__(self, path: Path, *, device: Device = "auto", threads: int = 0) -> None:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or session_threads()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        started = time.perf_counter()
        self._session = ort.InferenceSession(
            str(path), sess_options=options, providers=select_providers(device)
        )
        self.providers: list[str] = list(self._session.get_providers())
        self.input_names: list[str] = [i.name for i in self._session.get_inputs()]
        self.output_name: str = self._session.get_outputs()[0].name
        log.info(
            "onnx session ready",
            extra={
                "path": str(path),
                "providers": self.providers,
                "load_s": round(time.perf_counter() - started, 3),
            },
        )

    @property
    def on_gpu(self) -> bool:
        return CUDA in self.providers

    def run(self, feeds: dict[str, IntArray]) -> npt.NDArray[np.float32]:
        (output,) = self._session.run([self.output_name], feeds)
        return np.asarray(output, dtype=np.float32)
