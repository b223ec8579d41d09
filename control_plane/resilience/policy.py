"""What a failed model call means and what its caller should do: pure classification and the errors that
name the reason (``circuit_open``, ``gpu_unavailable``) for an ingest job or a search component.

GPU-bound models (``models.gpu_bound``) get one attempt: retrying a CUDA out-of-memory or a missing GPU
only repeats the failure (and holds the device longer), so the caller is told ``gpu_unavailable`` at once.
"""

from __future__ import annotations

import re

from control_plane.errors import UnavailableError

GPU_PROVIDER = "CUDAExecutionProvider"
# A rerank with a budget never fails a search (control_plane/inference/app.py): the service's 200 says
# whether the model's order was applied ("true") or the documents' own (fused) order ("false"), and why.
RERANKED_HEADER = "X-Biohybrid-Reranked"
RERANK_FALLBACK_HEADER = "X-Biohybrid-Rerank-Fallback"
# What onnxruntime, CUDA and the driver say when the device fails: "CUDA failure 2: out of memory",
# "CUBLAS_STATUS_ALLOC_FAILED", "CUDNN_STATUS_EXECUTION_FAILED", "CUDA out of memory", "no CUDA-capable
# device".
_GPU_FAILURE = re.compile(r"cuda|cudnn|cublas|cufft|curand|\bgpu\b|out of memory", re.IGNORECASE)


def is_gpu_failure(message: str) -> bool:
    """Whether an error message reports a GPU failure (out of device memory, a CUDA or cuDNN error)."""
    return bool(_GPU_FAILURE.search(message))


def attempts_for(gpu_bound: bool, attempts: int) -> int:
    """Calls a caller may make for one piece of work: one for a GPU-bound model, else ``attempts`` (≥ 1)."""
    return 1 if gpu_bound else max(1, attempts)


def backoff_s(attempt: int, base_s: float, cap_s: float = 10.0) -> float:
    """The wait before retry number ``attempt`` (0-based): base, 2 × base, 4 × base ... at most ``cap_s``."""
    return float(min(cap_s, base_s * 2.0**attempt))


class ModelCallError(UnavailableError, RuntimeError):
    """A model call failed; ``reason`` names why in the words jobs and search metadata use."""

    reason = "error"

    def __init__(self, model: str, message: str, failure: str | None = None) -> None:
        super().__init__(f"{self.reason}: model '{model}': {message}")
        self.model = model
        self.failure = message if failure is None else failure
        """What the model (or its service) said, without addresses: what is_gpu_failure reads."""


def failure_text(exc: BaseException) -> str:
    """The text that says why a model call failed (a ModelCallError's own ``failure``, else the message)."""
    return exc.failure if isinstance(exc, ModelCallError) else str(exc)


class CircuitOpenError(ModelCallError):
    """The model's breaker is open: it failed too often in a row and no call is made until it may probe."""

    reason = "circuit_open"


class GpuUnavailableError(ModelCallError):
    """A GPU-bound model cannot run on a GPU: the device failed (CUDA out of memory...) or there is none."""

    reason = "gpu_unavailable"
