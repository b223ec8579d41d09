"""What an index records about its models, and how a different one is named (pure parts)."""

from __future__ import annotations

from control_plane.config.settings import ModelsSettings
from control_plane.ingestion.index_models import describe_index, encoding_models, model_mismatches


def test_an_ingest_encodes_with_the_configured_dense_and_sparse_models() -> None:
    models = ModelsSettings(dense="minilm", sparse="splade-tiny")
    assert encoding_models(models) == {"dense": "minilm", "sparse": "splade-tiny"}


def test_each_role_recorded_with_another_model_is_named() -> None:
    recorded = {"dense": "bge-small", "sparse": "splade-tiny"}
    assert model_mismatches(recorded, {"dense": "bge-small", "sparse": "splade-tiny"}) == []
    assert model_mismatches(recorded, {"sparse": "splade-tiny", "dense": "bge-small-bio"}) == [
        "dense: the index has bge-small, this ingest bge-small-bio"
    ]
    # a role the index does not record yet is not a mismatch: it is recorded from now on
    assert model_mismatches({"dense": "bge-small"}, {"dense": "bge-small", "sparse": "x"}) == []


def test_status_describes_an_index_by_its_models_or_their_difference() -> None:
    configured = {"dense": "bge-small-bio", "sparse": "splade-tiny"}
    assert describe_index(configured, configured) == "dense bge-small-bio, sparse splade-tiny"
    assert describe_index({"dense": "bge-small", "sparse": "splade-tiny"}, configured) == (
        "DIFFERS: dense: the index has bge-small, configured bge-small-bio "
        "(re-ingest it, or query it with those models)"
    )
    assert describe_index(None, configured) == "models not recorded (ingested before records were kept)"
