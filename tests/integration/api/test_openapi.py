"""The served OpenAPI description checked against the running API with schemathesis: for every
operation, generated requests (valid and malformed) get answers that match the description, with
documented status codes and never a server error.

One check is left out: "positive data acceptance" (every schema-valid request must get a 2xx). Some
rules span fields and cannot be written in JSON Schema: weights summing to 1, a page inside the
fused candidate list, weights naming exactly the components searched. Such a request gets a 400 that
names the rule, which the description documents; everything expressible (types, ranges, enums,
unique components, unknown fields) is in the schema."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from integration.api.stack import ApiStack, headers
from schemathesis import checks

pytestmark = pytest.mark.integration

EXAMPLES_PER_OPERATION = 25


def test_api_conforms_to_its_description(stack: ApiStack) -> None:
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", stack.app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {op.label for op in operations} >= {"POST /v1/search", "GET /v1/search", "POST /v1/rewrite"}
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def conforms(case: schemathesis.Case) -> None:
            case.call_and_validate(
                headers=headers("a-search"), excluded_checks=[checks.positive_data_acceptance]
            )

        conforms()
