from typing import Any

import pytest

from control_plane.docsite.openapi_page import openapi_markdown, schema_type

DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1", "description": "A small API."},
    "paths": {
        "/v1/things": {
            "get": {
                "operationId": "listThings",
                "description": "Things, newest first.",
                "parameters": [
                    {
                        "name": "size",
                        "in": "query",
                        "schema": {"type": "integer", "minimum": 1, "maximum": 50},
                    },
                    {
                        "name": "q",
                        "in": "query",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "a | b",
                        "example": "x",
                    },
                ],
                "responses": {
                    "200": {
                        "description": "a page",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
                    },
                    "204": {"description": "nothing"},
                },
            },
            "post": {
                "operationId": "makeThing",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
                },
                "responses": {},
            },
        }
    },
    "components": {
        "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "X-API-Key"}},
        "schemas": {
            "Thing": {
                "description": "One\n thing.",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "maxLength": 20},
                    "size": {"type": "integer", "default": 10, "description": "how <big>"},
                    "error": {
                        "type": "object",
                        "properties": {"status": {"type": "integer"}},
                    },
                },
            },
            "Either": {
                "anyOf": [
                    {"title": "Left", "type": "object", "properties": {"l": {"type": "boolean"}}},
                    {"title": "Right", "type": "object", "properties": {"r": {"type": "null"}}},
                ]
            },
            "Name": {"type": "string", "pattern": "^[a-z]+$"},
        },
    },
}


def test_the_page_lists_auth_operations_and_schemas_in_order() -> None:
    page = openapi_markdown(DOC)
    headings = [line for line in page.splitlines() if line.startswith("#")]
    assert headings == [
        "## Authentication",
        "## Operations",
        "### GET /v1/things",
        "### POST /v1/things",
        "## Schemas",
        "### Either",
        "### Name",
        "### Thing",
    ]
    assert page.startswith("A small API.\n\nAPI version `1`, OpenAPI `3.1.0`.")
    assert "- `apiKey`: the header `X-API-Key`" in page


def test_an_operation_shows_parameters_body_and_responses() -> None:
    page = openapi_markdown(DOC)
    assert "Operation `listThings`.\n\nThings, newest first." in page
    assert "| `size` | query | integer (1 to 50) | no |  |" in page
    assert "| `q` | query | string | yes | a \\| b (example: `x`) |" in page
    assert "| `200` | a page | [Thing](#thing) (application/json) |" in page
    assert "| `204` | nothing | none |" in page
    assert "Request body (required): [Thing](#thing), as JSON." in page


def test_a_schema_table_flattens_inline_objects_and_shows_defaults() -> None:
    page = openapi_markdown(DOC)
    assert "### Thing\n\nOne thing.\n\n| field | type | required | default | description |" in page
    assert "| `name` | string (length ≤ 20) | yes |  |  |" in page
    assert "| `size` | integer | no | `10` | how &lt;big&gt; |" in page
    assert "| `error` | object | no |  |  |\n| `error.status` | integer | no |  |  |" in page


def test_alternatives_of_objects_get_a_table_each_and_a_scalar_its_type() -> None:
    page = openapi_markdown(DOC)
    assert "One of:\n\n**Left**\n\n| field |" in page and "**Right**" in page
    assert "### Name\n\nType: string (pattern `^[a-z]+$`)." in page


@pytest.mark.parametrize(
    ("schema", "text"),
    [
        ({"$ref": "#/components/schemas/SearchSpec"}, "[SearchSpec](#searchspec)"),
        ({"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}, "integer (≥ 1) or null"),
        ({"enum": ["rrf", "weighted"]}, '`"rrf"` or `"weighted"`'),
        ({"const": 3}, "`3`"),
        ({"type": ["string", "null"]}, "string or null"),
        (
            {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "array of string (1 to 3 items)",
        ),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "object of number"),
        ({"type": "number", "exclusiveMinimum": 0}, "number (> 0)"),
        ({}, "any"),
    ],
)
def test_schema_type(schema: dict[str, Any], text: str) -> None:
    assert schema_type(schema) == text
