"""Register the served models in ml-commons as remote models behind loopback connectors.

Idempotent by name: a model whose connector already matches the repository's blueprint is only
(re)deployed; a changed blueprint gets a new connector and model, and the old ones are removed, so
model ids change only when what they call changes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from opensearchpy import NotFoundError, OpenSearch
from opensearchpy.exceptions import RequestError

from control_plane.config.settings import Settings
from control_plane.locations import CONNECTORS_DIR
from control_plane.mlcommons.doc_only import corpus_idf, register_tokenizer_model, tokenizer_bundle
from control_plane.mlcommons.ml_api import (
    deploy_model,
    find_model,
    live_state,
    ml,
    remove_model,
    retry_recovering,
)
from control_plane.resources.catalog import CLINICAL_ROLES
from control_plane.resources.render import render
from control_plane.serving import caller_token

log = logging.getLogger(__name__)

# dense encodes documents (the chunk-embed ingest pipeline); dense_query is the same served model called
# with input_type "query", so the service adds the model's query prefix (BGE's instruction): the search
# pipelines' neural queries use it, and a document never gets the prefix.
# clinical_rewrite and clinical_route are the clinical search pipelines' request- and response-side
# models (control_plane/inference/clinical.py): the service's clinical logic, not a served network.
ROLES: tuple[str, ...] = ("dense", "dense_query", "sparse", "rerank", *CLINICAL_ROLES)
_BLUEPRINT_BY_ROLE = {
    "dense": "embedding.json",
    "dense_query": "embedding.json",
    "sparse": "sparse.json",
    "rerank": "rerank.json",
    "clinical_rewrite": "clinical-rewrite.json",
    "clinical_route": "clinical-route.json",
}
_SETTING_BY_ROLE = {"dense": "dense", "dense_query": "dense", "sparse": "sparse", "rerank": "rerank"}
CLINICAL_SERVED_NAME = "clinical"
# A clinical model call that takes longer is given up by ml-commons (the pipeline then degrades:
# control_plane/resources/search_pipelines/clinical/processors.json); the service answers in milliseconds.
# Under a burst the service queues the call instead of refusing it, so a read timeout is the wait a search
# accepts before the pipeline degrades (10 s, ml-commons' default for the other connectors).
CLINICAL_CONNECTION_TIMEOUT_S = 1
CLINICAL_READ_TIMEOUT_S = 10
CONNECTOR_MAX_CONNECTIONS = 16
"""Connections each connector's ml-commons client may hold open to the inference service; a call past them
waits inside OpenSearch. All of OpenSearch's connectors together stay within the service's thread share for
the ``opensearch`` caller (a unit test holds the two together), so the service never refuses them."""
_COMPARED_CONNECTOR_KEYS = ("parameters", "actions", "protocol")


@dataclass(frozen=True)
class RemoteModelSpec:
    """A model ml-commons serves through a connector to the inference service (the model files
    themselves are ``models.manifest.ModelSpec``)."""

    role: str
    served_name: str
    name: str
    connector: dict[str, Any]


@dataclass(frozen=True)
class RegisteredModel:
    role: str
    name: str
    model_id: str
    connector_id: str
    state: str


def model_specs(settings: Settings, connectors_dir: Path = CONNECTORS_DIR) -> list[RemoteModelSpec]:
    """What each role should be: the served model and the rendered connector blueprint (with the caller
    token as the connector's credential, and its fingerprint as a parameter, so a new token makes new
    connectors)."""
    token = caller_token()
    specs = []
    for role in ROLES:
        served = (
            CLINICAL_SERVED_NAME
            if role in CLINICAL_ROLES
            else str(getattr(settings.models, _SETTING_BY_ROLE[role]))
        )
        name = f"{settings.models.group}-{role.replace('_', '-')}-{served}"
        path = connectors_dir / _BLUEPRINT_BY_ROLE[role]
        params = {
            "connector.name": f"{name}-connector",
            "service.url": settings.models.service_url,
            "service.caller_token": token,
            "service.caller_token_id": hashlib.sha256(token.encode()).hexdigest()[:16],
            "service.max_connections": CONNECTOR_MAX_CONNECTIONS,
            "model.name": served,
            "embedding.input_type": "query" if role == "dense_query" else "document",
            "rerank.depth": settings.models.rerank_top_n,
            "rerank.model_weight": settings.models.rerank_model_weight,
            # the search path gives up on a reranked request after this: so does the service
            "rerank.budget_ms": settings.search.rerank_timeout_ms,
            # JSON in the request body: on a service whose model runs on CPU, the fused order at once
            # (models.gpu_bound naming rerank asks the same, as on /v1/search)
            "rerank.requires_gpu": "true" if settings.rerank_requires_gpu else "false",
            "clinical.connection_timeout_s": CLINICAL_CONNECTION_TIMEOUT_S,
            "clinical.read_timeout_s": CLINICAL_READ_TIMEOUT_S,
        }
        connector = render(json.loads(path.read_text(encoding="utf-8")), params, source=str(path))
        specs.append(RemoteModelSpec(role, served, name, connector))
    return specs


def register_models(client: OpenSearch, settings: Settings) -> list[RegisteredModel]:
    """Create connectors, the model group and remote models as needed, and deploy them."""
    group_id = _ensure_group(client, settings.models.group)
    registered = []
    for spec in model_specs(settings):
        existing = find_model(client, spec.name)
        if existing is not None and _connector_matches(
            client, existing.get("connector_id", ""), spec.connector
        ):
            model_id, connector_id = existing["_id"], existing["connector_id"]
        else:
            create = partial(ml(client).create_connector, body=spec.connector)
            connector_id = retry_recovering(create, what="create_connector")["connector_id"]
            body = {
                "name": spec.name,
                "function_name": "remote",
                "model_group_id": group_id,
                "connector_id": connector_id,
                "description": _describe(spec, settings.models.service_url),
            }
            register = partial(ml(client).register_model, body=body)
            model_id = retry_recovering(register, what="register_model")["model_id"]
            log.info("model registered", extra={"model": spec.name, "model_id": model_id})
            if existing is not None:
                remove_model(client, existing["_id"], existing.get("connector_id"))
        state = deploy_model(client, model_id, settings.models.deploy_timeout_s)
        registered.append(RegisteredModel(spec.role, spec.name, model_id, connector_id, state))
    if settings.models.sparse_query_mode == "doc-only":
        registered.append(_register_doc_only(client, settings))
    return registered


def doc_only_model_name(settings: Settings) -> str:
    return f"{settings.models.group}-sparse-query-doc-only"


def _register_doc_only(client: OpenSearch, settings: Settings) -> RegisteredModel:
    from control_plane.models.artifacts import verified_artifact
    from control_plane.models.manifest import load_manifest

    manifest = load_manifest()
    tokenizer_path = verified_artifact(manifest, manifest.model(settings.models.sparse), None).tokenizer
    idf = corpus_idf(client, settings.models.doc_only_idf_index, tokenizer_path)
    bundle = tokenizer_bundle(tokenizer_path.read_bytes(), idf)
    name = doc_only_model_name(settings)
    model_id = register_tokenizer_model(client, name, bundle, settings.models.deploy_timeout_s)
    return RegisteredModel("sparse_query", name, model_id, "", "DEPLOYED")


def models_status(client: OpenSearch, settings: Settings) -> list[RegisteredModel]:
    """Each role's model as ml-commons knows it (state NOT_REGISTERED when absent)."""
    status = []
    for spec in model_specs(settings):
        found = find_model(client, spec.name)
        if found is None:
            status.append(RegisteredModel(spec.role, spec.name, "", "", "NOT_REGISTERED"))
        else:
            status.append(
                RegisteredModel(
                    spec.role,
                    spec.name,
                    found["_id"],
                    found.get("connector_id", ""),
                    live_state(client, found["_id"]),
                )
            )
    if settings.models.sparse_query_mode == "doc-only":
        found = find_model(client, doc_only_model_name(settings))
        state = "NOT_REGISTERED" if found is None else live_state(client, str(found["_id"]))
        status.append(
            RegisteredModel(
                "sparse_query",
                doc_only_model_name(settings),
                "" if found is None else str(found["_id"]),
                "",
                state,
            )
        )
    return status


def deployed_model_ids(client: OpenSearch, settings: Settings) -> dict[str, str]:
    """``{role: model_id}`` for the roles whose model is deployed (empty before `models register`)."""
    return {m.role: m.model_id for m in models_status(client, settings) if m.state == "DEPLOYED"}


# States in which ml-commons holds no usable model id (absent, or its registration not done).
_WITHOUT_ID = frozenset({"NOT_REGISTERED", "REGISTERING", "REGISTER_FAILED"})


def ids_of_registered(models: Iterable[RegisteredModel]) -> dict[str, str]:
    """``{role: model_id}`` for every registered model, deployed or not. A pipeline names its models by
    id whatever their deploy state: right after a node restart ml-commons redeploys them
    (DEPLOYING, PARTIALLY_DEPLOYED), and rendering the pipelines from the deployed ones alone then drops
    their query enrichers, so `status` reported drift and `apply` would have written the stripped form."""
    return {m.role: m.model_id for m in models if m.state not in _WITHOUT_ID and m.model_id}


def registered_model_ids(client: OpenSearch, settings: Settings) -> dict[str, str]:
    """``{role: model_id}`` of the registered models (the ids the resources are rendered with)."""
    return ids_of_registered(models_status(client, settings))


def _describe(spec: RemoteModelSpec, service_url: str) -> str:
    if spec.role in CLINICAL_ROLES:
        side = "request" if spec.role == "clinical_rewrite" else "response"
        return f"the clinical search pipelines' {side}-side model at {service_url}"
    if spec.role == "rerank":
        return f"cross-encoder '{spec.served_name}' (query-passage relevance) at {service_url}"
    if spec.role == "dense_query":
        return f"dense model '{spec.served_name}' for queries (its query prefix applied) at {service_url}"
    return f"{spec.role} model '{spec.served_name}' at {service_url}"


def _ensure_group(client: OpenSearch, name: str) -> str:
    query = {"query": {"term": {"name.keyword": name}}}
    try:
        hits = ml(client).search_model_group(body=query)["hits"]["hits"]
    except (NotFoundError, RequestError):
        hits = []
    if hits:
        return str(hits[0]["_id"])
    created = retry_recovering(
        lambda: ml(client).register_model_group(
            body={"name": name, "description": "biohybrid remote models"}
        ),
        what="register_model_group",
    )
    return str(created["model_group_id"])


def _connector_matches(client: OpenSearch, connector_id: str, wanted: dict[str, Any]) -> bool:
    if not connector_id:
        return False
    try:
        current = ml(client).get_connector(connector_id=connector_id)
    except NotFoundError:
        return False
    same = all(_canonical(current.get(k)) == _canonical(wanted.get(k)) for k in _COMPARED_CONNECTOR_KEYS)
    return same and client_config_matches(current.get("client_config"), wanted.get("client_config"))


def client_config_matches(current: Any, wanted: Any) -> bool:
    """Whether a stored connector's ``client_config`` has every value the blueprint sets (ml-commons fills
    in its defaults for the others, so only the blueprint's keys are compared; numbers as numbers)."""
    if not wanted:
        return True
    if not isinstance(current, dict):
        return False
    return all(_same_setting(current.get(key), value) for key, value in wanted.items())


def _same_setting(current: Any, wanted: Any) -> bool:
    try:
        return float(current) == float(wanted)
    except (TypeError, ValueError):
        return bool(current == wanted)


def _canonical(value: Any) -> str:
    """JSON text for comparison; ml-commons upper-cases ``action_type`` when it stores a connector."""
    if isinstance(value, list):
        value = [
            {**a, "action_type": str(a.get("action_type", "")).lower()} if isinstance(a, dict) else a
            for a in value
        ]
    return json.dumps(value, sort_keys=True)
