import json
from typing import Any

from control_plane.config.settings import load_settings
from control_plane.mlcommons.registry import model_specs


def test_each_role_gets_a_named_connector_to_the_service() -> None:
    settings = load_settings(environ={"BIOHYBRID__MODELS__SERVICE_URL": "http://127.0.0.1:8600"})
    specs = {s.role: s for s in model_specs(settings)}
    assert set(specs) == {"dense", "dense_query", "sparse", "rerank", "clinical_rewrite", "clinical_route"}
    assert (
        specs["clinical_rewrite"].connector["actions"][0]["url"]
        == "${parameters.endpoint}/v1/clinical/rewrite"
    )
    assert (
        specs["clinical_route"].connector["actions"][0]["url"] == "${parameters.endpoint}/v1/clinical/route"
    )
    assert specs["clinical_route"].connector["client_config"]["read_timeout"] == 2
    dense = specs["dense"]
    assert dense.name == "biohybrid-dense-bge-small-bio"
    assert dense.connector["name"] == "biohybrid-dense-bge-small-bio-connector"
    assert dense.connector["parameters"] == {"endpoint": "http://127.0.0.1:8600", "model": "bge-small-bio"}
    assert dense.connector["credential"], "ml-commons wants a credential map even for a loopback service"
    [action] = dense.connector["actions"]
    assert action["url"] == "${parameters.endpoint}/v1/embeddings/${parameters.model}"
    assert action["post_process_function"] == "connector.post_process.default.embedding"
    assert "post_process_function" not in specs["sparse"].connector["actions"][0]
    assert (
        specs["rerank"].connector["actions"][0]["pre_process_function"]
        == "connector.pre_process.default.rerank"
    )


def test_documents_and_queries_get_their_own_dense_connector() -> None:
    """The ingest pipeline's model encodes documents as they are; the search pipelines' query model asks
    the service for query vectors (the model's query prefix added)."""
    specs = {s.role: s for s in model_specs(load_settings(environ={}))}
    document, query = specs["dense"], specs["dense_query"]
    assert query.name == "biohybrid-dense-query-bge-small-bio" and query.served_name == document.served_name
    assert json.loads(_filled(document.connector)) == {"input": ["t"], "input_type": "document"}
    assert json.loads(_filled(query.connector)) == {"input": ["t"], "input_type": "query"}


def _filled(connector: dict[str, Any]) -> str:
    """The request body ml-commons sends, with its input parameter filled in."""
    return str(connector["actions"][0]["request_body"]).replace("${parameters.input}", '["t"]')


def test_the_rerank_connector_sends_depth_weight_and_the_search_paths_budget() -> None:
    settings = load_settings(
        environ={
            "BIOHYBRID__MODELS__RERANK_TOP_N": "30",
            "BIOHYBRID__MODELS__RERANK_MODEL_WEIGHT": "0.4",
            "BIOHYBRID__SEARCH__RERANK_TIMEOUT_MS": "900",
        }
    )
    [rerank] = [s for s in model_specs(settings) if s.role == "rerank"]
    body = str(rerank.connector["actions"][0]["request_body"])
    filled = body.replace("${parameters.query}", "q").replace("${parameters.documents}", '["d"]')
    assert json.loads(filled) == {
        "query": "q",
        "documents": ["d"],
        "depth": 30,
        "model_weight": 0.4,
        "budget_ms": 900,
    }
