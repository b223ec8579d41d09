"""The served OpenAPI description checked against the running API with schemathesis: generated
requests, valid and malformed, get answers that match the description (and never a 5xx)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from integration.api.stack import ApiStack, headers

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def api_schema(stack: ApiStack) -> schemathesis.BaseSchema:
    return schemathesis.openapi.from_wsgi("/v1/openapi.json", stack.app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_description(case: schemathesis.Case) -> None:
    case.call_and_validate(headers=headers("a-search"))
