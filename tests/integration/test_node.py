"""The node the project's Ansible role provisions has the right version, plugins and modules."""

import pytest
from integration.node import pinned_version
from opensearchpy import OpenSearch

from control_plane.cluster.status import REQUIRED_PLUGINS

pytestmark = pytest.mark.integration

REQUIRED_MODULES = (
    "lang-painless",
    "mapper-extras",
    "analysis-common",
    "reindex",
    "ingest-common",
    "search-pipeline-common",
)


def test_version_is_the_pinned_one(client: OpenSearch) -> None:
    assert client.info()["version"]["number"] == pinned_version()


def test_plugins_and_modules_are_present(client: OpenSearch) -> None:
    [node] = client.nodes.info(metric="plugins")["nodes"].values()
    plugins = {p["name"] for p in node["plugins"]}
    modules = {m["name"] for m in node["modules"]}
    assert set(REQUIRED_PLUGINS) <= plugins
    assert set(REQUIRED_MODULES) <= modules


def test_cluster_is_healthy(client: OpenSearch) -> None:
    assert client.cluster.health()["status"] in {"green", "yellow"}


def test_ml_commons_accepts_loopback_connectors(client: OpenSearch) -> None:
    settings = client.cluster.get_settings(include_defaults=True, flat_settings=True)
    merged = {**settings["defaults"], **settings["persistent"], **settings["transient"]}
    assert merged["plugins.ml_commons.connector.private_ip_enabled"] == "true"
    assert merged["plugins.ml_commons.only_run_on_ml_node"] == "false"
