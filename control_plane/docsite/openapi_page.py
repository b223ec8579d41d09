"""The control API reference, rendered from the OpenAPI document the API serves (``GET /v1/openapi.json``,
built by control_plane/api/openapi.py from the models that validate requests): a hand-written reference
would drift from the code, this one cannot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from control_plane.docsite.cells import cell, code, json_value
from control_plane.reports.markdown import markdown_table

Schema = Mapping[str, Any]
REF_PREFIX: Final = "#/components/schemas/"
HTTP_METHODS: Final = ("get", "post", "put", "patch", "delete")


def openapi_markdown(doc: Schema) -> str:
    """The reference page's body: authentication, every operation, every schema."""
    info = doc.get("info", {})
    lines = [
        f"{info.get('description', '')}".strip(),
        "",
        f"API version {code(str(info.get('version', '?')))}, OpenAPI {code(str(doc.get('openapi', '?')))}.",
        "",
        *_security(doc),
        "## Operations",
        "",
    ]
    for path, item in doc.get("paths", {}).items():
        for method in HTTP_METHODS:
            if method in item:
                lines += _operation(method, path, item[method])
    schemas = doc.get("components", {}).get("schemas", {})
    if schemas:
        lines += ["## Schemas", ""]
        for name in sorted(schemas):
            lines += _schema_section(name, schemas[name])
    return "\n".join(lines).rstrip() + "\n"


def _security(doc: Schema) -> list[str]:
    schemes = doc.get("components", {}).get("securitySchemes", {})
    if not schemes:
        return []
    lines = ["## Authentication", "", "Every operation takes any one of:", ""]
    for name, scheme in schemes.items():
        if scheme.get("type") == "http":
            how = f"HTTP {scheme.get('scheme', '')} (`Authorization: Bearer KEY`)"
        elif scheme.get("type") == "apiKey":
            how = f"the {scheme.get('in', '')} {code(str(scheme.get('name', '')))}"
        else:
            how = str(scheme.get("type", "?"))
        lines.append(f"- {code(name)}: {how}")
    return [*lines, ""]


def _operation(method: str, path: str, operation: Schema) -> list[str]:
    lines = [f"### {method.upper()} {path}", ""]
    if "operationId" in operation:
        lines += [f"Operation {code(operation['operationId'])}.", ""]
    if operation.get("description"):
        lines += [str(operation["description"]).strip(), ""]
    parameters: Sequence[Schema] = operation.get("parameters", [])
    if parameters:
        rows = [
            [
                code(str(p["name"])),
                str(p.get("in", "")),
                cell(schema_type(p.get("schema", {}))),
                "yes" if p.get("required") else "no",
                cell(_describe(p.get("description", ""), p.get("example"))),
            ]
            for p in parameters
        ]
        lines += [
            "Parameters:",
            "",
            *markdown_table(["name", "in", "type", "required", "description"], rows),
            "",
        ]
    body = operation.get("requestBody")
    if body:
        schema = body.get("content", {}).get("application/json", {}).get("schema", {})
        required = " (required)" if body.get("required") else ""
        lines += [f"Request body{required}: {schema_type(schema)}, as JSON.", ""]
    responses: Mapping[str, Schema] = operation.get("responses", {})
    if responses:
        rows = [
            [code(status), cell(str(response.get("description", ""))), cell(_response_body(response))]
            for status, response in responses.items()
        ]
        lines += ["Responses:", "", *markdown_table(["status", "meaning", "body"], rows), ""]
    return lines


def _response_body(response: Schema) -> str:
    content = response.get("content", {})
    if not content:
        return "none"
    media, described = next(iter(content.items()))
    return f"{schema_type(described.get('schema', {}))} ({media})"


def _describe(description: str, example: Any) -> str:
    text = str(description).strip()
    if example is not None:
        text = f"{text} (example: {code(str(example))})".strip()
    return text


def anchor(name: str) -> str:
    """The heading id MkDocs gives ``### Name`` (lower case; the schemas' names are single words)."""
    return name.lower()


def schema_type(schema: Schema) -> str:
    """A schema as a short type: ``integer (1 to 200)``, ``array of "bm25" or "splade"``, a link to a
    named schema, ``X or null``."""
    if "$ref" in schema:
        name = str(schema["$ref"]).removeprefix(REF_PREFIX)
        return f"[{name}](#{anchor(name)})"
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return " or ".join(schema_type(option) for option in schema[key])
    if "const" in schema:
        return code(json_value(schema["const"]))
    if "enum" in schema:
        return " or ".join(code(json_value(value)) for value in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(schema_type({**schema, "type": one}) for one in kind)
    if kind == "array":
        text = f"array of {schema_type(schema.get('items', {}))}"
    elif kind == "object" and isinstance(schema.get("additionalProperties"), Mapping):
        text = f"object of {schema_type(schema['additionalProperties'])}"
    elif kind is None:
        text = str(schema.get("title", "any"))
    else:
        text = str(kind)
    bounds = _bounds(schema)
    return f"{text} ({bounds})" if bounds else text


def _bounds(schema: Schema) -> str:
    if "minLength" in schema or "maxLength" in schema:
        words = [_range(schema.get("minLength"), schema.get("maxLength"), "length ")]
    elif "minItems" in schema or "maxItems" in schema:
        words = [_range(schema.get("minItems"), schema.get("maxItems"), "", " items")]
    else:
        words = [_range(schema.get("minimum"), schema.get("maximum"))]
    if "exclusiveMinimum" in schema:
        words.append(f"> {schema['exclusiveMinimum']}")
    if "exclusiveMaximum" in schema:
        words.append(f"< {schema['exclusiveMaximum']}")
    if "pattern" in schema:
        words.append(f"pattern {code(str(schema['pattern']))}")
    return ", ".join(word for word in words if word)


def _range(low: Any, high: Any, before: str = "", after: str = "") -> str:
    """``1 to 200``, ``≥ 0``, ``≤ 2000`` (with a word before or after), or "" without bounds."""
    if low is not None and high is not None:
        return f"{before}{low} to {high}{after}"
    if low is not None:
        return f"{before}≥ {low}{after}"
    if high is not None:
        return f"{before}≤ {high}{after}"
    return ""


def _schema_section(name: str, schema: Schema) -> list[str]:
    lines = [f"### {name}", ""]
    if schema.get("description"):
        lines += [" ".join(str(schema["description"]).split()), ""]
    if "properties" in schema:
        return [*lines, *_properties_table(schema), ""]
    alternatives = schema.get("anyOf") or schema.get("oneOf")
    if alternatives and all("properties" in option for option in alternatives):
        lines += ["One of:", ""]
        for number, option in enumerate(alternatives, start=1):
            title = option.get("title", f"form {number}")
            lines += [f"**{title}**", "", *_properties_table(option), ""]
        return lines
    return [*lines, f"Type: {schema_type(schema)}.", ""]


def _properties_table(schema: Schema) -> list[str]:
    rows = _property_rows(schema, "")
    return markdown_table(["field", "type", "required", "default", "description"], rows)


def _property_rows(schema: Schema, prefix: str) -> list[list[str]]:
    """One row per property; an inline object's own properties follow as ``parent.child`` rows."""
    required = set(schema.get("required", []))
    rows: list[list[str]] = []
    for name, prop in schema.get("properties", {}).items():
        dotted = f"{prefix}{name}"
        nested = "properties" in prop and "$ref" not in prop
        rows.append(
            [
                code(dotted),
                cell("object" if nested else schema_type(prop)),
                "yes" if name in required else "no",
                cell(code(json_value(prop["default"]))) if "default" in prop else "",
                cell(str(prop.get("description", ""))),
            ]
        )
        if nested:
            rows += _property_rows(prop, f"{dotted}.")
    return rows
