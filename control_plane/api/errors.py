"""Exceptions to HTTP answers, in one place for every control API route.

A request that broke a rule gets its 4xx and a message naming the rule (pydantic's field problems, a
``ClientError``); a service that is down gets 503, as does a transient cluster answer (a node leaving, a
shard recovering: ``resilience/transient.py``, the classifier the direct clients retry by), with
Retry-After; 502 when OpenSearch refused. Anything else is a
failure of ours, never the client's: 500 with an error id that the logged traceback carries too, so an
internal ValueError can no longer pass for a bad request.
"""

from __future__ import annotations

import logging
import math
import uuid

from flask import Flask, Response, request
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError
from opensearchpy.exceptions import TransportError
from pydantic import ValidationError
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from control_plane.api.responses import error_response
from control_plane.errors import BiohybridError, RateLimitedError, UnavailableError
from control_plane.resilience.transient import is_transient

log = logging.getLogger(__name__)
# Seconds a client waits before asking again after a transient cluster answer.
RETRY_AFTER_S = "1"


def internal_error(exc: Exception) -> Response:
    """500 with an error id; the traceback is logged with the same id."""
    error_id = uuid.uuid4().hex[:12]
    log.error("internal error", exc_info=exc, extra={"error_id": error_id, "path": request.path})
    return error_response(500, f"internal error {error_id}: see the control API log for this id")


UNKNOWN_FIELD = "not a known field (remove it or check its spelling; every field: GET /v1/openapi.json)"


def validation_problems(exc: ValidationError) -> list[dict[str, str]]:
    """Each broken rule as ``{"field", "problem"}``; a field the request does not define is named as
    such, with where the request's fields are listed (pydantic says only "Extra inputs are not
    permitted")."""
    return [
        {
            "field": ".".join(str(p) for p in err["loc"]) or "(body)",
            "problem": UNKNOWN_FIELD if err.get("type") == "extra_forbidden" else err["msg"],
        }
        for err in exc.errors()
    ]


def register_error_handlers(app: Flask, opensearch_url: str) -> None:
    """Flask picks the most specific handler along the exception's class hierarchy."""

    @app.errorhandler(ValidationError)
    def invalid(exc: ValidationError) -> Response:
        problems = validation_problems(exc)
        message = "invalid request: " + "; ".join(f"{p['field']}: {p['problem']}" for p in problems)
        return error_response(400, message, details=problems)

    @app.errorhandler(BiohybridError)
    def project_error(exc: BiohybridError) -> Response:
        if exc.http_status >= 500 and not isinstance(exc, UnavailableError):
            return internal_error(exc)
        answer = error_response(exc.http_status, str(exc), details=exc.details)
        if isinstance(exc, RateLimitedError):
            answer.headers["Retry-After"] = str(max(1, math.ceil(exc.retry_after_s)))
        return answer

    @app.errorhandler(OpenSearchConnectionError)
    def no_cluster(exc: OpenSearchConnectionError) -> Response:
        return error_response(503, f"cannot reach OpenSearch at {opensearch_url}")

    @app.errorhandler(TransportError)
    def cluster_refused(exc: TransportError) -> Response:
        if is_transient(exc):
            log.warning("opensearch answered transiently", extra={"error": str(exc)[:500]})
            answer = error_response(
                503,
                f"OpenSearch cannot answer for a moment (a node leaving, a shard recovering): "
                f"ask again; {str(exc)[:300]}",
            )
            answer.headers["Retry-After"] = RETRY_AFTER_S
            return answer
        log.warning("opensearch refused", extra={"error": str(exc)[:500]})
        return error_response(502, f"OpenSearch refused the request: {str(exc)[:300]}")

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc: RequestEntityTooLarge) -> Response:
        limit = app.config.get("MAX_CONTENT_LENGTH")
        return error_response(
            413, f"the body has more than {limit} bytes, the most a request to this API may send: send less"
        )

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        return error_response(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def unexpected(exc: Exception) -> Response:
        return internal_error(exc)
