"""One mapping from exceptions to HTTP answers: client errors keep their status and message, internal
failures become 500 with an error id (never a 400), and every project exception shares the root."""

from __future__ import annotations

import importlib
import inspect
import logging
import pkgutil
import re

import pytest
from flask import Flask
from pydantic import BaseModel, ConfigDict
from unit.resilience.cluster_answers import NO_INDEX, NULL_NODE, raised

import control_plane
from control_plane.api.auth import AuthError
from control_plane.api.errors import register_error_handlers
from control_plane.errors import BadRequestError, BiohybridError
from control_plane.models.artifacts import ArtifactError
from control_plane.search.service import SearchUnavailableError


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: int


def _app() -> Flask:
    app = Flask("errors")
    register_error_handlers(app, "http://127.0.0.1:9200")
    failures = {
        "bad": BadRequestError("size must be >= 1"),
        "forbidden": AuthError(403, "role search cannot apply resources"),
        "down": SearchUnavailableError(["dense: timeout", "bm25: unavailable"]),
        "internal-value": ValueError("candidate_depth must be resolved first"),
        "internal-project": ArtifactError("model.onnx differs from the manifest"),
        "node-left": raised(NULL_NODE),
        "no-index": raised(NO_INDEX),
    }

    @app.get("/fail/<name>")
    def fail(name: str) -> str:
        raise failures[name]

    @app.get("/validate")
    def validate() -> str:
        Body.model_validate({"size": "many"})
        return "unreachable"

    @app.get("/unknown-field")
    def unknown_field() -> str:
        Body.model_validate({"size": 3, "index": "chunks-demo"})
        return "unreachable"

    return app


def _error(path: str) -> tuple[int, dict[str, object]]:
    answer = _app().test_client().get(path)
    return answer.status_code, answer.get_json()["error"]


def test_client_errors_keep_their_status_and_message() -> None:
    assert _error("/fail/bad") == (400, {"status": 400, "message": "size must be >= 1"})
    assert _error("/fail/forbidden")[0] == 403
    status, error = _error("/validate")
    assert status == 400 and error["details"][0]["field"] == "size"  # type: ignore[index]


def test_a_field_the_request_does_not_define_is_named_with_where_the_fields_are_listed() -> None:
    status, error = _error("/unknown-field")
    problem = "not a known field (remove it or check its spelling; every field: GET /v1/openapi.json)"
    assert status == 400 and error["details"] == [{"field": "index", "problem": problem}]
    assert error["message"] == f"invalid request: index: {problem}"


def test_an_unavailable_service_is_a_503_with_its_reasons() -> None:
    status, error = _error("/fail/down")
    assert status == 503 and error["details"] == ["dense: timeout", "bm25: unavailable"]


@pytest.mark.parametrize("name", ["internal-value", "internal-project"])
def test_internal_failures_are_500_with_an_error_id_in_body_and_log(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="control_plane.api.errors"):
        status, error = _error(f"/fail/{name}")
    assert status == 500
    found = re.fullmatch(
        r"internal error ([0-9a-f]{12}): see the control API log for this id", str(error["message"])
    )
    assert found is not None
    assert [r.error_id for r in caplog.records] == [found.group(1)]  # type: ignore[attr-defined]
    assert "manifest" not in str(error["message"]) and "candidate_depth" not in str(error["message"])


def test_unknown_routes_stay_404() -> None:
    assert _error("/nowhere")[0] == 404


def test_every_project_exception_shares_the_root() -> None:
    outside = []
    for module in pkgutil.walk_packages(control_plane.__path__, "control_plane."):
        if module.name.endswith(".__main__"):
            continue  # importing a __main__ runs it
        loaded = importlib.import_module(module.name)
        for name, value in inspect.getmembers(loaded, inspect.isclass):
            ours = value.__module__ == module.name and issubclass(value, BaseException)
            if ours and not issubclass(value, BiohybridError):
                outside.append(f"{module.name}.{name}")
    assert outside == []


def test_a_transient_cluster_answer_is_503_with_retry_after_and_a_refusal_502() -> None:
    answer = _app().test_client().get("/fail/node-left")
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "1"
    assert "ask again" in answer.get_json()["error"]["message"]
    refused = _app().test_client().get("/fail/no-index")
    assert refused.status_code == 502 and "Retry-After" not in refused.headers
