"""The console's part of the OpenAPI document: the public page and assets, and the admin data endpoints
(request schemas from the models that validate them)."""

from __future__ import annotations

from typing import Any

from control_plane.api.console.configs import CompareRequest
from control_plane.api.console.routes import ASSETS, RunsQuery
from control_plane.evaluation.store import MAX_HISTORY

_OBJECT = {"type": "object"}


def console_schemas() -> dict[str, Any]:
    schema = CompareRequest.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas: dict[str, Any] = schema.pop("$defs", {})
    schemas["CompareRequest"] = schema
    schemas["Comparison"] = {
        "type": "object",
        "required": ["question", "size", "columns", "diff"],
        "description": "each column's facts and hits (record, section, scores, route note, highlights), "
        "each hit marked against the other column",
        "properties": {
            "question": {"type": "string"},
            "size": {"type": "integer"},
            "columns": {"type": "array", "items": _OBJECT, "minItems": 2, "maxItems": 2},
            "diff": _OBJECT,
        },
    }
    schemas["RunsPlot"] = {
        "type": "object",
        "required": ["index", "runs", "metric", "metrics", "plot"],
        "properties": {
            "index": {"type": "string"},
            "runs": {"type": "integer"},
            "metric": {"type": ["string", "null"]},
            "metrics": {"type": "array", "items": {"type": "string"}},
            "plot": {"type": ["object", "null"]},
        },
    }
    schemas["ConsoleOverview"] = {
        "type": "object",
        "required": ["models", "pipelines", "resources", "drifted"],
        "properties": {
            "models": {"type": "array", "items": _OBJECT},
            "pipelines": {"type": "array", "items": {"type": "string"}},
            "resources": {"type": "array", "items": _OBJECT},
            "drifted": {"type": "integer"},
        },
    }
    return schemas


def _runs_parameters() -> list[dict[str, Any]]:
    """RunsQuery's fields as query parameters (strings or integers: a query string has no null)."""
    fields = RunsQuery.model_fields
    limit = fields["limit"]
    return [
        {
            "name": "metric",
            "in": "query",
            "description": fields["metric"].description,
            "schema": {"type": "string", "minLength": 1, "maxLength": 100},
        },
        {"name": "dataset", "in": "query", "schema": {"type": "string", "minLength": 1, "maxLength": 500}},
        {
            "name": "limit",
            "in": "query",
            "description": limit.description,
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_HISTORY, "default": limit.default},
        },
    ]


def console_paths(errors: dict[str, Any], ok: Any) -> dict[str, Any]:
    """``errors``: the admin operations' error answers; ``ok(description, schema)``: a 200 answer."""

    def plain(description: str, media: str) -> dict[str, Any]:
        return {"description": description, "content": {media: {"schema": {"type": "string"}}}}

    not_found = {
        "description": "no such asset",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    asset_media = {media: {"schema": {"type": "string"}} for media in sorted(set(ASSETS.values()))}
    body = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CompareRequest"}}},
    }
    return {
        "/console": {
            "get": {
                "operationId": "console",
                "security": [],
                "description": "The relevance console's page: a shell holding no data that asks for the "
                "admin key, then calls the /v1/admin/console/ endpoints with it",
                "responses": {"200": plain("the page", "text/html")},
            }
        },
        "/console/{name}": {
            "get": {
                "operationId": "consoleAsset",
                "security": [],
                "description": f"The page's script and styles ({', '.join(ASSETS)})",
                "parameters": [
                    {"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "the asset", "content": asset_media}, "404": not_found},
            }
        },
        "/v1/admin/console/compare": {
            "post": {
                "operationId": "consoleCompare",
                "description": "One question through two configurations (a search pipeline as a client "
                "queries it, or /v1/search with options), side by side, the differences marked",
                "requestBody": body,
                "responses": {"200": ok("the two columns and their differences", "Comparison"), **errors},
            }
        },
        "/v1/admin/console/runs": {
            "get": {
                "operationId": "consoleRuns",
                "description": "The key's tenant's stored evaluation runs as a plot of one metric over time",
                "parameters": _runs_parameters(),
                "responses": {"200": ok("the plot's series and axes", "RunsPlot"), **errors},
            }
        },
        "/v1/admin/console/overview": {
            "get": {
                "operationId": "consoleOverview",
                "description": "Models, the project's search pipelines and each resource's drift",
                "responses": {"200": ok("models, pipelines and drift", "ConsoleOverview"), **errors},
            }
        },
    }
