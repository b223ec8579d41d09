"""What a test session may change on the shared local node, recorded at its start and put back at its end.

A developer's node (the one `make run` started) is reused by the tests. They register models of their
own (model group ``TEST_GROUP``, behind inference services on random ports), apply pipelines with those
models' ids, re-apply templates and write jobs; the developer's models, connectors and their URLs are never
touched, and at the end of the session (the ``client`` fixture) the pipelines, templates and the ``jobs``
index are put back as they were recorded and the tests' models, connectors and groups are removed.
``tests/integration/test_node_left_as_found.py`` checks it by running a module that registers models.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from opensearchpy import NotFoundError, OpenSearch
from opensearchpy.exceptions import RequestError

from control_plane.config.settings import LOCAL_FILE, Settings, load_settings
from control_plane.mlcommons.ml_api import delete_connector, ml, remove_model

# The model group the tests register their models in: names of their own, so registering them behind a
# test's service never replaces (and so never re-points) the developer's models of group "biohybrid".
TEST_GROUP = "biohybrid-tests"
JOBS_INDEX = "jobs"


# The tests check the reranker's own order, so their models opt in to CPU rerank (the default,
# search.rerank_requires_gpu: true, answers the fused order at once on a node without a GPU; the tests of
# that default set it back).
CPU_RERANK = {"BIOHYBRID__SEARCH__RERANK_REQUIRES_GPU": "false"}


def isolated_settings(service_url: str, **environ: str) -> Settings:
    """The local settings with the tests' model group and ``service_url``, CPU rerank opted in;
    ``environ`` adds settings (``BIOHYBRID__...`` variables)."""
    return load_settings(
        LOCAL_FILE,
        environ={
            "BIOHYBRID__MODELS__SERVICE_URL": service_url,
            "BIOHYBRID__MODELS__GROUP": TEST_GROUP,
            **CPU_RERANK,
            **environ,
        },
    )


def remove_test_models(client: OpenSearch) -> None:
    """Undeploy and delete the tests' models (and their connectors and group): a fixture that registered
    them calls this when it ends, so a later registration never finds (and replaces) another's."""
    for model_id, (name, _, connector_id, _) in _models(client).items():
        if name.startswith(f"{TEST_GROUP}-"):
            remove_model(client, model_id, connector_id or None)
    for group_id, name in _groups(client).items():
        if name == TEST_GROUP:
            with contextlib.suppress(NotFoundError):
                ml(client).delete_model_group(model_group_id=group_id)


@dataclass(frozen=True)
class NodeState:
    """The node's models (id -> name, group, connector, state), connectors (id -> name, URLs), model
    groups (id -> name), pipelines and templates (name -> body) and the ``jobs`` index's document ids
    (None: no such index)."""

    models: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    connectors: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    search_pipelines: dict[str, Any] = field(default_factory=dict)
    ingest_pipelines: dict[str, Any] = field(default_factory=dict)
    component_templates: dict[str, Any] = field(default_factory=dict)
    index_templates: dict[str, Any] = field(default_factory=dict)
    jobs: frozenset[str] | None = None


def read_state(client: OpenSearch) -> NodeState:
    return NodeState(
        models=_models(client),
        connectors={
            hit["_id"]: (str(hit["_source"].get("name", "")), _urls(hit["_source"]))
            for hit in _ml_search(client, "connectors", {})
        },
        groups=_groups(client),
        search_pipelines=_named(lambda: client.transport.perform_request("GET", "/_search/pipeline")),
        ingest_pipelines=_named(lambda: client.ingest.get_pipeline()),
        component_templates={
            t["name"]: t["component_template"]
            for t in _named(lambda: client.cluster.get_component_template()).get("component_templates", [])
        },
        index_templates=_index_templates(client),
        jobs=_job_ids(client),
    )


def _models(client: OpenSearch) -> dict[str, tuple[str, str, str, str]]:
    """Each model's id -> (name, group id, connector id, state), without local models' chunks."""
    return {
        hit["_id"]: (
            str(s.get("name", "")),
            str(s.get("model_group_id", "")),
            str(s.get("connector_id", "")),
            str(s.get("model_state", "")),
        )
        for hit in _ml_search(client, "models", {"must_not": [{"exists": {"field": "chunk_number"}}]})
        for s in [hit["_source"]]
    }


def _groups(client: OpenSearch) -> dict[str, str]:
    return {hit["_id"]: str(hit["_source"].get("name", "")) for hit in _ml_search(client, "model_groups", {})}


def _index_templates(client: OpenSearch) -> dict[str, Any]:
    return {
        t["name"]: t["index_template"]
        for t in _named(lambda: client.indices.get_index_template()).get("index_templates", [])
    }


def restore_state(client: OpenSearch, recorded: NodeState) -> None:
    """Put pipelines, templates and ``jobs`` back as ``recorded`` and remove models, connectors and
    groups it did not have (only ones of the tests' group are ever made: see ``TEST_GROUP``)."""
    current = read_state(client)
    for model_id, (_, _, connector_id, _) in current.models.items():
        if model_id not in recorded.models:
            remove_model(client, model_id, connector_id or None)
    for connector_id in set(current.connectors) - set(recorded.connectors):
        delete_connector(client, connector_id)
    for group_id in set(current.groups) - set(recorded.groups):
        with contextlib.suppress(NotFoundError):
            ml(client).delete_model_group(model_group_id=group_id)
    _put_back(
        recorded.search_pipelines,
        current.search_pipelines,
        lambda name, body: client.transport.perform_request("PUT", f"/_search/pipeline/{name}", body=body),
        lambda name: client.transport.perform_request("DELETE", f"/_search/pipeline/{name}"),
    )
    _put_back(
        recorded.ingest_pipelines,
        current.ingest_pipelines,
        lambda name, body: client.ingest.put_pipeline(id=name, body=body),
        lambda name: client.ingest.delete_pipeline(id=name),
    )
    # index templates name their components: deleted before, and put after, the components change
    _put_back(
        recorded.index_templates,
        current.index_templates,
        lambda name, body: None,
        lambda name: client.indices.delete_index_template(name=name),
    )
    _put_back(
        recorded.component_templates,
        current.component_templates,
        lambda name, body: client.cluster.put_component_template(name=name, body=body),
        lambda name: client.cluster.delete_component_template(name=name),
    )
    _put_back(
        recorded.index_templates,
        _index_templates(client),
        lambda name, body: client.indices.put_index_template(name=name, body=body),
        lambda name: None,
    )
    _restore_jobs(client, recorded.jobs, current.jobs)


def differences(recorded: NodeState, now: NodeState) -> list[str]:
    """One line per part that differs (empty: the node is as recorded)."""
    lines = []
    for part in NodeState.__dataclass_fields__:
        before, after = getattr(recorded, part), getattr(now, part)
        if before == after:
            continue
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            lines.append(f"{part}: {', '.join(changed)}")
        else:
            lines.append(f"{part}: {before!r} -> {after!r}")
    return lines


def _put_back(
    recorded: Mapping[str, Any],
    current: Mapping[str, Any],
    put: Callable[[str, Any], Any],
    delete: Callable[[str], Any],
) -> None:
    for name in sorted(set(recorded) | set(current)):
        if name not in recorded:
            delete(name)
        elif current.get(name) != recorded[name]:
            put(name, recorded[name])


def _restore_jobs(
    client: OpenSearch, recorded: frozenset[str] | None, current: frozenset[str] | None
) -> None:
    if current is None or recorded == current:
        return
    if recorded is None:
        client.indices.delete(index=JOBS_INDEX, ignore_unavailable=True)
        return
    for job_id in current - recorded:
        client.delete(index=JOBS_INDEX, id=job_id, refresh=True, ignore=[404])


def _job_ids(client: OpenSearch) -> frozenset[str] | None:
    if not client.indices.exists(index=JOBS_INDEX):
        return None
    client.indices.refresh(index=JOBS_INDEX)
    body = {"size": 10000, "_source": False, "query": {"match_all": {}}}
    return frozenset(hit["_id"] for hit in client.search(index=JOBS_INDEX, body=body)["hits"]["hits"])


def _ml_search(client: OpenSearch, what: str, query: dict[str, Any]) -> list[dict[str, Any]]:
    body = {"size": 1000, "query": {"bool": query} if query else {"match_all": {}}}
    try:
        answer = client.transport.perform_request("POST", f"/_plugins/_ml/{what}/_search", body=body)
    except (NotFoundError, RequestError):
        return []  # no such system index yet
    return list(answer["hits"]["hits"])


def _named(call: Callable[[], Any]) -> dict[str, Any]:
    try:
        return dict(call())
    except NotFoundError:
        return {}


def _urls(connector: Mapping[str, Any]) -> tuple[str, ...]:
    """Each action's URL with the connector's ``${parameters.x}`` filled in (where it calls)."""
    parameters = connector.get("parameters") or {}

    def fill(match: re.Match[str]) -> str:
        return str(parameters.get(match.group(1), match.group(0)))

    return tuple(
        re.sub(r"\$\{parameters\.([A-Za-z0-9_.]+)\}", fill, str(action.get("url", "")))
        for action in connector.get("actions", [])
    )
