"""What a failed model call means: GPU failures recognised from their messages, one attempt for a
GPU-bound model, the back-off, and errors that carry their reason."""

from __future__ import annotations

import pytest

from control_plane.resilience.policy import (
    CircuitOpenError,
    GpuUnavailableError,
    ModelCallError,
    attempts_for,
    backoff_s,
    failure_text,
    is_gpu_failure,
)


@pytest.mark.parametrize(
    "message",
    [
        "CUDA out of memory",
        "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : CUDA failure 2: out of memory ; GPU=0",
        "CUBLAS failure 13: CUBLAS_STATUS_EXECUTION_FAILED",
        "CUDNN_STATUS_INTERNAL_ERROR",
        "no CUDA-capable device is detected",
    ],
)
def test_gpu_failures_are_recognised(message: str) -> None:
    assert is_gpu_failure(message)


@pytest.mark.parametrize(
    "message",
    ["model 'bge-small' is overloaded (32 requests queued)", "cannot reach http://gpus.example:8501", ""],
)
def test_other_failures_are_not_gpu_failures(message: str) -> None:
    assert not is_gpu_failure(message)


def test_a_gpu_bound_model_gets_one_attempt() -> None:
    assert (attempts_for(True, 3), attempts_for(False, 3), attempts_for(False, 0)) == (1, 3, 1)


def test_the_back_off_doubles_up_to_its_cap() -> None:
    assert [backoff_s(a, 0.5, cap_s=3.0) for a in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_errors_name_their_reason_and_model() -> None:
    gpu = GpuUnavailableError("bge-small", "CUDA out of memory")
    assert (gpu.reason, gpu.model, gpu.http_status) == ("gpu_unavailable", "bge-small", 503)
    assert str(gpu) == "gpu_unavailable: model 'bge-small': CUDA out of memory"
    assert CircuitOpenError("splade-tiny", "3 failed calls").reason == "circuit_open"
    assert ModelCallError("m", "x").reason == "error"


def test_the_failure_text_is_the_models_own_words() -> None:
    served = ModelCallError(
        "bge-small", "http://gpu-box:8501/v1/embeddings answered 500: boom", failure="boom"
    )
    assert failure_text(served) == "boom" and not is_gpu_failure(failure_text(served))
    assert failure_text(RuntimeError("CUDA failure 2")) == "CUDA failure 2"
