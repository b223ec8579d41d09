"""The ml-commons model calls every registration path shares: find, deploy, remove (no connector logic).

registry.py (remote models behind connectors) and doc_only.py (an uploaded tokenizer model) both use
these, so neither imports the other for them.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from opensearchpy import NotFoundError, OpenSearch
from opensearchpy.exceptions import RequestError

from control_plane.errors import UnavailableError

log = logging.getLogger(__name__)


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


def ml(client: OpenSearch) -> Any:
    """The ml-commons namespace of opensearch-py (untyped there)."""
    return client.plugins.ml


def deploy_model(client: OpenSearch, model_id: str, timeout_s: float) -> str:
    """Deploy ``model_id`` unless deployed, and wait for DEPLOYED (any model kind, remote or uploaded)."""
    state = str(ml(client).get_model(model_id=model_id).get("model_state", ""))
    if state != "DEPLOYED":
        ml(client).deploy_model(model_id=model_id)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = str(ml(client).get_model(model_id=model_id).get("model_state", ""))
        if state == "DEPLOYED":
            return state
        if state == "DEPLOY_FAILED":
            break
        time.sleep(0.5)
    raise ModelsNotReadyError(
        f"model {model_id} did not deploy (state {state or 'unknown'}); see the node log"
    )


def remove_model(client: OpenSearch, model_id: str, connector_id: str | None = None) -> None:
    """Undeploy and delete a replaced model (and its connector, if any)."""
    try:
        ml(client).undeploy_model(model_id=model_id)
        ml(client).delete_model(model_id=model_id)
        if connector_id:
            ml(client).delete_connector(connector_id=connector_id)
    except NotFoundError:
        pass
    log.info("model replaced", extra={"old_model_id": model_id})
