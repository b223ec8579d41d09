from control_plane.config.settings import load_settings
from control_plane.mlcommons.registry import model_specs


def test_each_role_gets_a_named_connector_to_the_service() -> None:
    settings = load_settings(environ={"BIOHYBRID__MODELS__SERVICE_URL": "http://127.0.0.1:8600"})
    specs = {s.role: s for s in model_specs(settings)}
    assert set(specs) == {"dense", "sparse", "rerank"}
    dense = specs["dense"]
    assert dense.name == "biohybrid-dense-minilm"
    assert dense.connector["name"] == "biohybrid-dense-minilm-connector"
    assert dense.connector["parameters"] == {"endpoint": "http://127.0.0.1:8600", "model": "minilm"}
    assert dense.connector["credential"], "ml-commons wants a credential map even for a loopback service"
    [action] = dense.connector["actions"]
    assert action["url"] == "${parameters.endpoint}/v1/embeddings/${parameters.model}"
    assert action["post_process_function"] == "connector.post_process.default.embedding"
    assert "post_process_function" not in specs["sparse"].connector["actions"][0]
    assert (
        specs["rerank"].connector["actions"][0]["pre_process_function"]
        == "connector.pre_process.default.rerank"
    )
