"""A model call of ingest behind its circuit breaker and the failure policy (control_plane/resilience).

A failed call is retried after a back-off (``ingest.encode_attempts``, ``ingest.encode_backoff_s``) unless
the model is GPU-bound (``models.gpu_bound``): then it gets one attempt, and a GPU failure (CUDA out of
memory...) or a model that turns out to run on CPU (checked on its first answer) raises
GpuUnavailableError, so the ingest stops with reason ``gpu_unavailable``. Every failure counts on the
model's breaker; once it opens, the ingest stops with ``circuit_open`` and later ingests sharing the
breaker (the control API's jobs) fail fast, without calling, until a probe after ``ingest.breaker_reset_s``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from control_plane.resilience.breaker import CircuitBreaker
from control_plane.resilience.policy import (
    CircuitOpenError,
    GpuUnavailableError,
    attempts_for,
    backoff_s,
    failure_text,
    is_gpu_failure,
)

R = TypeVar("R")
log = logging.getLogger(__name__)


class GuardedModel(Generic[R]):
    """``encode`` of a dense or sparse model (local ONNX or the inference service), guarded."""

    def __init__(
        self,
        name: str,
        encode: Callable[[Sequence[str]], R],
        breaker: CircuitBreaker,
        *,
        gpu_bound: bool,
        on_gpu: Callable[[], bool],
        attempts: int,
        backoff_base_s: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = name
        self._encode = encode
        self._breaker = breaker
        self._gpu_bound = gpu_bound
        self._on_gpu = on_gpu
        self._gpu_checked = False
        self._attempts = attempts_for(gpu_bound, attempts)
        self._backoff_base_s = backoff_base_s
        self._sleep = sleep

    def encode(self, texts: Sequence[str]) -> R:
        for attempt in range(self._attempts):
            if not self._breaker.allow():
                raise CircuitOpenError(self.name, self._open_detail())
            try:
                result = self._encode(texts)
            except Exception as exc:  # onnxruntime's and the service's failures alike: classified here
                self._breaker.record_failure()
                if self._gpu_bound and is_gpu_failure(failure_text(exc)):
                    raise GpuUnavailableError(self.name, f"{exc} (GPU-bound: not retried)") from exc
                if self._breaker.state == "open":
                    raise CircuitOpenError(self.name, f"{self._open_detail()}; last failure: {exc}") from exc
                if attempt + 1 >= self._attempts:
                    raise
                delay = backoff_s(attempt, self._backoff_base_s)
                log.warning(
                    "model call failed, retrying",
                    extra={"model": self.name, "attempt": attempt + 1, "delay_s": delay, "error": str(exc)},
                )
                self._sleep(delay)
                continue
            self._breaker.record_success()
            self._check_gpu()
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _check_gpu(self) -> None:
        if not self._gpu_bound or self._gpu_checked:
            return
        if not self._on_gpu():
            raise GpuUnavailableError(
                self.name,
                "GPU-bound (models.gpu_bound) but it runs on CPU here: run it on a GPU (onnxruntime-gpu) "
                "or take its role out of models.gpu_bound",
            )
        self._gpu_checked = True

    def _open_detail(self) -> str:
        return (
            f"{self._breaker.consecutive_failures} failed calls in a row opened its breaker; no call for "
            f"{self._breaker.retry_in_s():.1f}s more (ingest.breaker_reset_s)"
        )
