"""The ml-commons model calls every registration path shares: find, deploy, remove (no connector logic).

registry.py (remote models behind connectors) and doc_only.py (an uploaded tokenizer model) both use
these, so neither imports the other for them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from opensearchpy import NotFoundError, OpenSearch
from opensearchpy.exceptions import ConflictError, RequestError

from control_plane.errors import UnavailableError
from control_plane.resilience.retry import retry_transient
from control_plane.resilience.transient import is_unstarted_shard

log = logging.getLogger(__name__)
T = TypeVar("T")
# Calls of an ml-commons write in all: waits of 0.5, 1, 2, 4, 8 s then 10 s, about a minute together.
RECOVERY_ATTEMPTS = 10


class ModelsNotReadyError(UnavailableError, RuntimeError):
    """A model could not be registered or deployed; the message says which and why."""


def find_model(client: OpenSearch, name: str) -> dict[str, Any] | None:
    query = {
        "size": 10,
        "query": {
            "bool": {
                "filter": [{"term": {"name.keyword": name}}],
                "must_not": [{"exists": {"field": "chunk_number"}}],
            }
        },
    }
    try:
        hits = ml(client).search_models(body=query)["hits"]["hits"]
    except (NotFoundError, RequestError):
        return None  # no model index yet
    if not hits:
        return None
    newest = max(hits, key=lambda h: h["_source"].get("created_time", 0))
    return {"_id": newest["_id"], **newest["_source"]}


def live_state(client: OpenSearch, model_id: str) -> str:
    """A model's state as ml-commons holds it now: a real-time get, where a search of the model index
    may still show the state before the last deploy (it refreshes about once a second), so a status read
    right after ``deploy_model`` returned agrees with it. NOT_REGISTERED when the model is gone."""
    try:
        return _model_state(client, model_id) or "UNKNOWN"
    except NotFoundError:
        return "NOT_REGISTERED"


def _model_state(client: OpenSearch, model_id: str) -> str:
    """The model's ``model_state`` by real-time get ("" when the model has none yet)."""
    return str(ml(client).get_model(model_id=model_id).get("model_state", ""))


def ml(client: OpenSearch) -> Any:
    """The ml-commons namespace of opensearch-py (untyped there)."""
    return client.plugins.ml


def deploy_model(client: OpenSearch, model_id: str, timeout_s: float) -> str:
    """Deploy ``model_id`` unless deployed, and wait for DEPLOYED (any model kind, remote or uploaded)."""
    state = _model_state(client, model_id)
    if state != "DEPLOYED":
        ml(client).deploy_model(model_id=model_id)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = _model_state(client, model_id)
        if state == "DEPLOYED":
            return state
        if state == "DEPLOY_FAILED":
            break
        time.sleep(0.5)
    raise ModelsNotReadyError(
        f"model {model_id} did not deploy (state {state or 'unknown'}); see the node log"
    )


_LOADED_STATES = frozenset({"DEPLOYED", "DEPLOYING", "PARTIALLY_DEPLOYED"})
"""States in which ml-commons refuses to delete a model ("Try undeploy model first")."""


def remove_model(
    client: OpenSearch, model_id: str, connector_id: str | None = None, timeout_s: float = 30.0
) -> None:
    """Undeploy and delete a replaced model (and its connector, if any).

    The undeploy call can answer before the model's recorded state leaves DEPLOYED (ml-commons writes it
    afterwards: opensearch-project/ml-commons#2419), and a delete in that moment is refused with a 400;
    so the delete waits for the state to change, up to ``timeout_s``, asking again every few seconds."""
    try:
        ml(client).undeploy_model(model_id=model_id)
        _wait_unloaded(client, model_id, timeout_s)
        ml(client).delete_model(model_id=model_id)
    except NotFoundError:
        pass
    if connector_id:
        delete_connector(client, connector_id)
    log.info("model replaced", extra={"old_model_id": model_id})


def _wait_unloaded(client: OpenSearch, model_id: str, timeout_s: float, ask_every_s: float = 5.0) -> None:
    started = time.monotonic()
    asked = started
    state = _model_state(client, model_id)
    while state in _LOADED_STATES:
        now = time.monotonic()
        if now - asked >= ask_every_s:
            ml(client).undeploy_model(model_id=model_id)
            asked = now
        if now - started >= timeout_s:
            raise ModelsNotReadyError(
                f"model {model_id} is still {state} {timeout_s:g} s after it was undeployed, so it cannot be "
                "deleted; see the node log, then run the command again"
            )
        time.sleep(0.5)
        state = _model_state(client, model_id)


def delete_connector(client: OpenSearch, connector_id: str, wait_s: float = 10.0) -> bool:
    """Delete a connector once no model uses it; False when one still does after ``wait_s``, or when
    ml-commons refuses it for models that do not use it.

    ml-commons refuses (409) while a model names the connector, and a model deleted a moment ago stays
    visible to that check until the model index refreshes: so a refusal is retried. Its check is a
    ``match`` query on the models' ``connector_id``, a text field, so it also finds models whose
    connector id shares a word with this one (ids split at ``-``: on a node whose ids hold ``-9-``, every
    id shares "9"); when no model names this id exactly, the refusal will not clear and is reported at
    once (``word_match_only``). A connector left behind costs nothing and is reported, so replacing a
    model never fails on it.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            ml(client).delete_connector(connector_id=connector_id)
            return True
        except NotFoundError:
            return True
        except ConflictError as error:
            if word_match_only(client, connector_id):
                log.warning(
                    "connector left in place: ml-commons refuses to delete it for models that share a word "
                    "of its id but do not use it (its check matches connector_id as text)",
                    extra={"connector_id": connector_id, "error": str(error)[:300]},
                )
                return False
            if time.monotonic() >= deadline:
                log.warning(
                    "connector still in use, left in place",
                    extra={"connector_id": connector_id, "error": str(error)},
                )
                return False
            time.sleep(0.5)


def models_naming(client: OpenSearch, connector_id: str) -> list[str]:
    """The models whose connector is exactly ``connector_id`` (a keyword match on the id, as the text
    field's ``keyword`` sub-field holds it, or on the field itself where it is a keyword)."""
    exact = [{"term": {"connector_id.keyword": connector_id}}, {"term": {"connector_id": connector_id}}]
    body = {"size": 100, "query": {"bool": {"should": exact}}}
    return [hit["_id"] for hit in ml(client).search_models(body=body)["hits"]["hits"]]


def word_match_only(client: OpenSearch, connector_id: str) -> bool:
    """Whether ml-commons' in-use check (a ``match`` on ``connector_id``) finds models while none names
    this connector exactly: its refusal then comes from ids sharing a word, and will not clear."""
    body = {"size": 100, "query": {"match": {"connector_id": connector_id}}}
    matched = ml(client).search_models(body=body)["hits"]["hits"]
    return bool(matched) and not models_naming(client, connector_id)


def retry_recovering(
    call: Callable[[], T], *, what: str, attempts: int = RECOVERY_ATTEMPTS, base_s: float = 0.5
) -> T:
    """``call()``, retried with back-off while it meets a shard not started yet, ``attempts`` calls at most.

    ml-commons creates its system indices (connectors, models) on their first write, on a new cluster,
    and writes before the primary has recovered. Only answers that say so are retried
    (``is_unstarted_shard``: the write never ran); these writes are not idempotent, so a lost connection,
    which may have followed a write that landed, goes to the caller unchanged, as does any other error.
    """
    return retry_transient(call, what=what, attempts=attempts, base_s=base_s, transient=is_unstarted_shard)
