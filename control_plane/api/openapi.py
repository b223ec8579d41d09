"""The API's OpenAPI 3.1 description, built from the same pydantic models that validate requests and
shape answers (so the description cannot drift from the code)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, get_args

from pydantic import BaseModel

from control_plane.api.admin import IngestRequest
from control_plane.api.console.openapi import console_paths, console_schemas
from control_plane.cluster.manage import Action
from control_plane.evaluation.api import EvaluateRequest
from control_plane.ledger.records import JOB_KINDS, JOB_STATES, JobRecord
from control_plane.ledger.store import MAX_PAGE
from control_plane.search.results import SearchResponse
from control_plane.search.spec import Granularity, SearchSpec

ERROR_REF = {"$ref": "#/components/schemas/Error"}
_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["status", "message"],
            "properties": {"status": {"type": "integer"}, "message": {"type": "string"}, "details": {}},
        }
    },
}


def _schema(model: type[BaseModel], mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    return model.model_json_schema(ref_template="#/components/schemas/{model}", mode=mode)


def _ledger_job() -> dict[str, Any]:
    """A ledger record as GET /v1/admin/jobs shows it: the stored fields and ``id``."""
    schema = _schema(JobRecord, "serialization")
    schema.pop("additionalProperties", None)
    schema["properties"] = {"id": {"type": "string"}, **schema["properties"]}
    schema["required"] = ["id", *schema.get("required", [])]
    schema["title"] = "LedgerJob"
    return schema


def _running_job() -> dict[str, Any]:
    """A job as the process running it shows it (with its result), before the ledger is read."""
    number_or_null = {"anyOf": [{"type": "number"}, {"type": "null"}]}
    text_or_null = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    return {
        "title": "RunningJob",
        "type": "object",
        "required": ["id", "kind", "tenant", "state"],
        "properties": {
            "id": {"type": "string"},
            "kind": {"type": "string", "enum": ["ingest", "evaluate"]},
            "tenant": {"type": "string"},
            "state": {"type": "string", "enum": list(JOB_STATES)},
            "started": {"type": "number"},
            "finished": number_or_null,
            "result": {},
            "error": text_or_null,
            "reason": text_or_null,
        },
    }


@lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    schemas: dict[str, Any] = {}
    models: tuple[tuple[type[BaseModel], Literal["validation", "serialization"]], ...] = (
        (SearchSpec, "validation"),
        (SearchResponse, "serialization"),
        (IngestRequest, "validation"),
        (EvaluateRequest, "validation"),
    )
    for model, mode in models:
        schema = _schema(model, mode)
        schemas.update(schema.pop("$defs", {}))
        schemas[model.__name__] = schema
    schemas["Error"] = _ERROR
    retrieve = {
        "type": "object",
        "required": ["query"],
        "additionalProperties": False,
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 2000},
            "intent": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
            "filters": {"$ref": "#/components/schemas/Filters"},
            "topK": {"type": "integer", "minimum": 1, "maximum": 200},
            "rerank_enabled": {"type": "boolean"},
        },
    }
    schemas["RetrieveRequest"] = retrieve
    schemas["Job"] = {"anyOf": [_ledger_job(), _running_job()]}
    schemas["RunningJob"] = _running_job()
    schemas.update(_admin_schemas())
    schemas.update(console_schemas())
    schemas["JobList"] = {
        "type": "object",
        "required": ["total", "from", "size", "jobs"],
        "properties": {
            "total": {"type": "integer"},
            "from": {"type": "integer"},
            "size": {"type": "integer"},
            "jobs": {"type": "array", "items": {"$ref": "#/components/schemas/Job"}},
        },
    }
    errors = {
        str(code): {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for code, text in (
            (400, "invalid request (the message names the field)"),
            (401, "missing or unknown API key"),
            (403, "the key's role does not allow this"),
            (429, "the key is past its rate or its requests in progress (api.key_limits); see Retry-After"),
            (503, "no retrieval component available, or OpenSearch unreachable"),
        )
    }
    search_ok = {
        "200": {
            "description": "results and metadata",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchResponse"}}},
        },
        **errors,
    }
    body = {
        "required": True,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/SearchSpec"}}},
    }
    get_params = [
        {"name": "q", "in": "query", "required": True, "schema": {"type": "string", "minLength": 1}},
        {"name": "k", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 200}},
        {"name": "from", "in": "query", "schema": {"type": "integer", "minimum": 0}},
        {"name": "components", "in": "query", "schema": {"type": "string"}, "description": "comma-separated"},
        {"name": "fusion_method", "in": "query", "schema": {"type": "string", "enum": ["rrf", "weighted"]}},
        {"name": "rerank", "in": "query", "schema": {"type": "boolean"}},
        {
            "name": "granularity",
            "in": "query",
            "schema": {"type": "string", "enum": list(get_args(Granularity))},
        },
        {
            "name": "$filter",
            "in": "query",
            "schema": {"type": "string", "maxLength": 2000},
            "description": "OData filter over source, doc_type, section, intent, publication_date: eq ne gt "
            "ge lt le (gt..le on publication_date), in (...), and, or, not, parentheses; strings quoted "
            "'like this', dates unquoted YYYY-MM-DD. ANDed with the key's tenant. A malformed expression "
            "is a 400 naming its position and token",
            "example": "source eq 'ctgov' and publication_date ge 2020-01-01",
        },
        {
            "name": "$orderby",
            "in": "query",
            "schema": {"type": "string"},
            "description": "score or publication_date, each asc (the OData default) or desc, comma-"
            "separated; orders the fused candidates before paging (undated chunks last)",
            "example": "publication_date desc",
        },
        {"name": "$top", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 200}},
        {"name": "$skip", "in": "query", "schema": {"type": "integer", "minimum": 0}},
    ]
    job_params = [
        {"name": "kind", "in": "query", "schema": {"type": "string", "enum": list(JOB_KINDS)}},
        {"name": "state", "in": "query", "schema": {"type": "string", "enum": list(JOB_STATES)}},
        {"name": "size", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE}},
        {"name": "from", "in": "query", "schema": {"type": "integer", "minimum": 0, "maximum": 10000}},
    ]
    admin_errors = {**errors, "403": {**errors["403"], "description": "the key's role is not admin"}}
    not_found = {
        "description": "no such job of the key's tenant",
        "content": {"application/json": {"schema": ERROR_REF}},
    }

    def ok(description: str, schema: str) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{schema}"}
        return {"description": description, "content": {"application/json": {"schema": ref}}}

    security: list[dict[str, list[str]]] = [{"bearer": []}, {"apiKey": []}]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "biohybrid control API",
            "version": "1",
            "description": "Hybrid (BM25 + SPLADE + dense) biomedical search executed by OpenSearch; "
            "clinical boosts, degradation, document-level results, highlights. Keys map to a tenant "
            "and a role.",
        },
        "security": security,
        "paths": {
            "/v1/search": {
                "post": {"operationId": "search", "requestBody": body, "responses": search_ok},
                "get": {"operationId": "searchGet", "parameters": get_params, "responses": search_ok},
            },
            "/retrieve": {
                "post": {
                    "operationId": "retrieve",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/RetrieveRequest"}}
                        },
                    },
                    "responses": search_ok,
                }
            },
            "/v1/rewrite": {
                "post": {
                    "operationId": "rewrite",
                    "requestBody": body,
                    "responses": {
                        "200": {
                            "description": "the OpenSearch request /v1/search would send: method, path, "
                            "index, params, pipeline (inline) and body",
                            "content": {"application/json": {"schema": {"type": "object"}}},
                        },
                        **errors,
                    },
                }
            },
            "/v1/admin/jobs": {
                "get": {
                    "operationId": "listJobs",
                    "description": "The job ledger: the key's tenant's ingest, model registration and "
                    "evaluation jobs, newest first (admin role)",
                    "parameters": job_params,
                    "responses": {"200": ok("one page of jobs", "JobList"), **admin_errors},
                }
            },
            "/v1/admin/jobs/{job_id}": {
                "get": {
                    "operationId": "getJob",
                    "parameters": [
                        {"name": "job_id", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": {"200": ok("the job", "Job"), "404": not_found, **admin_errors},
                }
            },
            **_admin_paths(admin_errors, ok),
            **console_paths(admin_errors, ok),
            **_service_paths(),
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
        },
    }


def _admin_schemas() -> dict[str, Any]:
    """What the admin operations answer (dataclasses of the cluster and ml-commons code, as JSON)."""
    text = {"type": "string"}
    return {
        "Drift": {
            "type": "object",
            "description": "resource label -> its differences (empty: in sync), as `biohybrid verify`",
            "additionalProperties": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["path", "expected", "actual"],
                    "properties": {"path": text, "expected": text, "actual": text},
                },
            },
        },
        "ApplyResults": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["resource", "action"],
                "properties": {
                    "resource": text,
                    "action": {"type": "string", "enum": [action.value for action in Action]},
                },
            },
        },
        "Models": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["role", "name", "model_id", "connector_id", "state"],
                "properties": {
                    "role": text,
                    "name": text,
                    "model_id": text,
                    "connector_id": text,
                    "state": text,
                },
            },
        },
    }


def _admin_paths(errors: dict[str, Any], ok: Any) -> dict[str, Any]:
    """The admin role's operations besides the job ledger: resources, models, ingest and evaluate."""

    def body(schema: str) -> dict[str, Any]:
        ref = {"$ref": f"#/components/schemas/{schema}"}
        return {"required": True, "content": {"application/json": {"schema": ref}}}

    accepted = ok("the job, accepted (poll GET /v1/admin/jobs/{job_id})", "RunningJob")
    return {
        "/v1/admin/resources": {
            "get": {
                "operationId": "verifyResources",
                "description": "Drift of the templates and pipelines against the repository "
                "(as `biohybrid verify`)",
                "responses": {"200": ok("each resource's differences", "Drift"), **errors},
            }
        },
        "/v1/admin/apply": {
            "post": {
                "operationId": "applyResources",
                "description": "Install or update the templates and pipelines (as `biohybrid apply`); "
                "idempotent",
                "responses": {"200": ok("what each resource needed", "ApplyResults"), **errors},
            }
        },
        "/v1/admin/models": {
            "get": {
                "operationId": "listModels",
                "description": "Each role's model as ml-commons knows it (as `biohybrid models status`)",
                "responses": {"200": ok("the models", "Models"), **errors},
            }
        },
        "/v1/admin/ingest": {
            "post": {
                "operationId": "ingest",
                "description": "An ingest job into the key's tenant's index (an index that is not the "
                "tenant's is refused with 403 before anything is written; one no chunk template covers, a "
                "reserved one, an unknown strategy or a source that is not there with 400, and no job)",
                "requestBody": body("IngestRequest"),
                "responses": {"202": accepted, **errors},
            }
        },
        "/v1/evaluate": {
            "post": {
                "operationId": "evaluate",
                "description": "An evaluation job on a judged test set (as `biohybrid evaluate`)",
                "requestBody": body("EvaluateRequest"),
                "responses": {"202": accepted, **errors},
            }
        },
    }


def _service_paths() -> dict[str, Any]:
    """Liveness, readiness, metrics and this document: no key needed."""

    def plain(description: str, schema: dict[str, Any], media: str = "application/json") -> dict[str, Any]:
        return {"description": description, "content": {media: {"schema": schema}}}

    ready = {
        "type": "object",
        "required": ["ready"],
        "properties": {"ready": {"type": "boolean"}, "opensearch": {"type": "string"}},
    }
    health = {"type": "object", "required": ["status"], "properties": {"status": {"const": "ok"}}}
    return {
        "/health": {
            "get": {
                "operationId": "health",
                "security": [],
                "description": "Liveness: the process answers",
                "responses": {"200": plain("alive", health)},
            }
        },
        "/ready": {
            "get": {
                "operationId": "ready",
                "security": [],
                "description": "Readiness: OpenSearch answers within 2 s",
                "responses": {
                    "200": plain("ready", ready),
                    "503": plain("OpenSearch unreachable (its error, shortened)", ready),
                },
            }
        },
        "/metrics": {
            "get": {
                "operationId": "metrics",
                "security": [],
                "description": "Prometheus metrics (text exposition format)",
                "responses": {"200": plain("the metrics", {"type": "string"}, "text/plain")},
            }
        },
        "/v1/openapi.json": {
            "get": {
                "operationId": "openapi",
                "security": [],
                "description": "This document",
                "responses": {"200": plain("the OpenAPI 3.1 document", {"type": "object"})},
            }
        },
    }
