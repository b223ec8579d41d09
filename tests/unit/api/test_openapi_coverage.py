"""The OpenAPI document describes every route the app serves, with the methods it serves them on, so the
generated reference (docs/api/reference.md) and the schemathesis conformance test cover the whole API."""

from __future__ import annotations

import re

from unit.api.unreachable import unreachable_settings

from control_plane.api.app import create_app
from control_plane.api.openapi import openapi_document
from control_plane.evaluation.settings import load_evaluation_settings

IGNORED_METHODS = {"HEAD", "OPTIONS"}


def _served() -> set[tuple[str, str]]:
    app = create_app(unreachable_settings(), evaluation=load_evaluation_settings())
    return {
        (method, re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in app.url_map.iter_rules()
        if rule.endpoint != "static"
        for method in rule.methods or ()
        if method not in IGNORED_METHODS
    }


def test_every_served_route_is_described() -> None:
    described = {
        (method.upper(), path) for path, item in openapi_document()["paths"].items() for method in item
    }
    served = _served()
    assert served - described == set(), "served but not in the OpenAPI document"
    assert described - served == set(), "in the OpenAPI document but not served"


def test_only_the_probes_metrics_the_document_and_the_console_shell_need_no_key() -> None:
    """The console's page and assets hold no data (the page asks for the admin key)."""
    open_paths = {
        path
        for path, item in openapi_document()["paths"].items()
        for operation in item.values()
        if operation.get("security") == []
    }
    assert open_paths == {"/health", "/ready", "/metrics", "/v1/openapi.json", "/console", "/console/{name}"}
