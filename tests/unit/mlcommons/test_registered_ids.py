"""Which model ids the resources are rendered with: every registered model's, whatever its deploy state."""

from control_plane.mlcommons.registry import RegisteredModel, ids_of_registered


def _model(role: str, state: str, model_id: str = "") -> RegisteredModel:
    return RegisteredModel(role, f"biohybrid-{role}", model_id or f"id-{role}", "conn", state)


def test_models_being_redeployed_keep_their_ids() -> None:
    """Right after a node restart ml-commons redeploys its models: the pipelines still name them."""
    models = [
        _model("dense", "DEPLOYED"),
        _model("sparse", "DEPLOYING"),
        _model("dense_query", "PARTIALLY_DEPLOYED"),
        _model("rerank", "UNDEPLOYED"),
        _model("clinical_rewrite", "DEPLOY_FAILED"),
    ]
    assert ids_of_registered(models) == {
        "dense": "id-dense",
        "sparse": "id-sparse",
        "dense_query": "id-dense_query",
        "rerank": "id-rerank",
        "clinical_rewrite": "id-clinical_rewrite",
    }


def test_absent_or_unfinished_registrations_have_no_id() -> None:
    models = [
        RegisteredModel("dense", "biohybrid-dense", "", "", "NOT_REGISTERED"),
        _model("sparse", "REGISTERING"),
        _model("rerank", "REGISTER_FAILED"),
        _model("dense_query", "REGISTERED"),
    ]
    assert ids_of_registered(models) == {"dense_query": "id-dense_query"}
