"""Reading resources on the real node: an absent one (what a first `biohybrid apply` or `models register`
meets) is None without a warning in the log; a present one is read; a real failure still warns."""

from __future__ import annotations

import logging
import uuid

import pytest
from opensearchpy import OpenSearch
from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

from control_plane.cluster.client import make_client
from control_plane.cluster.resources_api import get_resource
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.settings import Settings
from control_plane.resources.catalog import ResourceKind

pytestmark = pytest.mark.integration


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("kind", list(ResourceKind))
def test_an_absent_resource_is_none_and_logs_no_warning(
    client: OpenSearch, kind: ResourceKind, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    assert get_resource(client, kind, f"absent-{uuid.uuid4().hex[:8]}") is None
    assert _warnings(caplog) == []


def test_a_present_resource_is_read(client: OpenSearch, applied: Settings) -> None:
    found = get_resource(client, ResourceKind.SEARCH_PIPELINE, "hybrid-rrf")
    assert found is not None and "phase_results_processors" in found
    template = get_resource(client, ResourceKind.INDEX_TEMPLATE, "eval-runs")
    assert template is not None and template["index_patterns"] == ["eval-runs*"]


def test_a_real_failure_still_warns(caplog: pytest.LogCaptureFixture) -> None:
    nobody = make_client(OpenSearchSettings(url="http://127.0.0.1:9"))  # the discard port: refused
    caplog.set_level(logging.INFO)
    with pytest.raises(OpenSearchConnectionError):
        get_resource(nobody, ResourceKind.SEARCH_PIPELINE, "hybrid-rrf")
    assert any("127.0.0.1:9" in message for message in _warnings(caplog))
