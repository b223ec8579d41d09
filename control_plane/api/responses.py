"""JSON answers of the control API: one shape for payloads and one for errors, for every route."""

from __future__ import annotations

import json
from typing import Any

from flask import Response


def json_response(payload: Any, status: int = 200) -> Response:
    """``payload`` as JSON; values JSON lacks (dates, paths) are written as strings."""
    return Response(json.dumps(payload, default=str), status=status, mimetype="application/json")


def error_response(status: int, message: str, details: Any = None) -> Response:
    """``{"error": {"status", "message"[, "details"]}}``, the shape the OpenAPI description documents."""
    error: dict[str, Any] = {"status": status, "message": message}
    if details is not None:
        error["details"] = details
    return json_response({"error": error}, status)
