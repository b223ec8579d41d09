"""The fault switch: make the next N model calls fail, so resilience is tested against the real service.

Enabled only when the service starts with ``--fault-injection`` or ``BIOHYBRID_INFERENCE_FAULT_INJECTION=1``;
otherwise ``/admin/faults`` answers 404, so a production service cannot be faulted by accident.

* ``POST /admin/faults`` ``{"fail_next": N, "status": 503, "message": "CUDA out of memory",
  "endpoints"?: ["embeddings", "sparse", "rerank"]}``: the next N calls on those endpoints (default those
  three; ``clinical_rewrite`` and ``clinical_route`` when named), for a served model, answer ``status``
  with ``message`` in the usual error body without running the model. They are counted in
  ``biohybrid_inference_requests_total`` like any other answer (status label)
  and in ``biohybrid_inference_injected_faults_total``.
* ``POST /admin/faults`` ``{"fail_next": N, "delay_ms": D, "endpoints": ["rerank"]}``: a slow model, for
  real: the next N rerank calls are not failed but run, each after the model's worker has stalled ``D``
  ms before its batch (control_plane/inference/batching.py ``MicroBatcher.stall``), so that call and every
  request queued behind it on that model wait, miss their budgets and fill the queue as under a slow or
  overloaded model. Counted in ``biohybrid_inference_injected_faults_total`` too.
* ``GET /admin/faults``: what is armed. ``DELETE /admin/faults``: disarm.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any, Final

from flask import Flask, Response, jsonify, request
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

ENV_VAR: Final = "BIOHYBRID_INFERENCE_FAULT_INJECTION"
ENDPOINTS: Final = ("embeddings", "sparse", "rerank")
# The endpoints a delay (a slow model) can be armed on: those whose handler stalls its model's worker.
DELAY_ENDPOINTS: Final = ("rerank",)
# The clinical pipelines' models (control_plane/inference/clinical.py): armed only when named. A fault
# on clinical_rewrite fails its clinical step (the plain hybrid query is answered, as when the step
# breaks); one on clinical_route fails the answer (the pipeline then keeps the fused order).
CLINICAL_ENDPOINTS: Final = ("clinical_rewrite", "clinical_route")


class FaultRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    fail_next: int = Field(ge=0, le=1_000_000)
    status: int = Field(503, ge=400, le=599)
    message: str = Field("injected fault", min_length=1, max_length=2000)
    endpoints: tuple[str, ...] = Field(ENDPOINTS, min_length=1)
    # > 0: the calls are slowed by this much in the model's worker instead of failed
    delay_ms: int = Field(0, ge=0, le=600_000)

    @model_validator(mode="after")
    def _delay_where_it_applies(self) -> FaultRequest:
        slow = sorted(set(self.endpoints) - set(DELAY_ENDPOINTS))
        if self.delay_ms > 0 and slow:
            raise ValueError(
                f"delay_ms applies to {list(DELAY_ENDPOINTS)} only: leave {slow} out of endpoints"
            )
        return self

    @field_validator("endpoints")
    @classmethod
    def _known(cls, endpoints: tuple[str, ...]) -> tuple[str, ...]:
        unknown = sorted(set(endpoints) - {*ENDPOINTS, *CLINICAL_ENDPOINTS})
        if unknown:
            raise ValueError(f"unknown endpoints {unknown}: use any of {[*ENDPOINTS, *CLINICAL_ENDPOINTS]}")
        return endpoints


@dataclass(frozen=True)
class Fault:
    status: int
    message: str


@dataclass(frozen=True)
class Armed:
    remaining: int
    status: int
    message: str
    endpoints: tuple[str, ...]
    delay_ms: int = 0


class FaultInjector:
    """What is armed; thread-safe (request threads take faults concurrently)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._armed: Armed | None = None

    def arm(self, wanted: FaultRequest) -> Armed:
        with self._lock:
            self._armed = Armed(
                wanted.fail_next, wanted.status, wanted.message, wanted.endpoints, wanted.delay_ms
            )
            return self._armed

    def clear(self) -> None:
        with self._lock:
            self._armed = None

    def armed(self) -> Armed | None:
        with self._lock:
            return self._armed

    def take(self, endpoint: str) -> Fault | None:
        """The fault this call on ``endpoint`` must answer, if one is armed for it (one is used up)."""
        with self._lock:
            armed = self._armed
            if armed is None or armed.delay_ms > 0:
                return None
            if armed.remaining <= 0 or endpoint not in armed.endpoints:
                return None
            self._armed = Armed(armed.remaining - 1, armed.status, armed.message, armed.endpoints)
            return Fault(armed.status, armed.message)

    def take_delay(self, endpoint: str) -> float:
        """Seconds this call on ``endpoint`` must stall its model's worker (0: none armed; one is used up)."""
        with self._lock:
            armed = self._armed
            if (
                armed is None
                or armed.delay_ms <= 0
                or armed.remaining <= 0
                or endpoint not in armed.endpoints
            ):
                return 0.0
            self._armed = Armed(
                armed.remaining - 1, armed.status, armed.message, armed.endpoints, armed.delay_ms
            )
            return armed.delay_ms / 1000


def register_fault_routes(app: Flask, injector: FaultInjector | None) -> None:
    """``/admin/faults`` on ``app``: 404 with how to enable it when ``injector`` is None (switch off)."""

    def answer(payload: Any, status: int = 200) -> Response:
        response = jsonify(payload)
        response.status_code = status
        return response

    def off() -> Response:
        message = f"fault injection is off (start the service with --fault-injection or {ENV_VAR}=1)"
        return answer({"error": {"status": 404, "message": message}}, 404)

    def state(current: FaultInjector) -> Response:
        armed = current.armed()
        return answer({"armed": asdict(armed) if armed is not None and armed.remaining > 0 else None})

    @app.route("/admin/faults", methods=["GET", "POST", "DELETE"])
    def faults() -> Response:
        if injector is None:
            return off()
        if request.method == "POST":
            try:
                injector.arm(FaultRequest.model_validate(request.get_json(force=True, silent=True)))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'body'}: {e['msg']}" for e in exc.errors()
                )
                return answer({"error": {"status": 400, "message": f"bad fault request: {problems}"}}, 400)
        elif request.method == "DELETE":
            injector.clear()
        return state(injector)
