"""The API's OpenAPI 3.1 description, built from the same pydantic models that validate requests and
shape answers (so the description cannot drift from the code)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Literal, get_args

from pydantic import BaseModel

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
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
            },
        },
    }
