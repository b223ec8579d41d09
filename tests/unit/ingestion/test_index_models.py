"""What an index records about its models, and how a different one is named (pure parts)."""

from __future__ import annotations

from control_plane.config.models_settings import ModelsSettings
from control_plane.ingestion.index_models import (
    META_KEY,
    REENCODING_KEY,
    IndexRecord,
    Reencoding,
    describe_index,
    encoding_models,
    index_record,
    model_mismatches,
    reencode_command,
)


def test_an_ingest_encodes_with_the_configured_dense_and_sparse_models() -> None:
    models = ModelsSettings(dense="minilm", sparse="splade-tiny")
    assert encoding_models(models) == {"dense": "minilm", "sparse": "splade-tiny"}


def test_each_role_recorded_with_another_model_is_named() -> None:
    recorded = {"dense": "bge-small", "sparse": "splade-tiny"}
    assert model_mismatches(recorded, {"dense": "bge-small", "sparse": "splade-tiny"}) == []
    assert model_mismatches(recorded, {"sparse": "splade-tiny", "dense": "bge-small-bio"}) == [
        "dense: the index has bge-small, this ingest bge-small-bio"
    ]
    # a role the index does not record is not a mismatch (claim_index refuses it as unrecorded)
    assert model_mismatches({"dense": "bge-small"}, {"dense": "bge-small", "sparse": "x"}) == []


def test_the_fixing_command_names_the_index_and_a_tenant_other_than_the_default() -> None:
    assert reencode_command("chunks-default") == "biohybrid reencode --index chunks-default"
    assert reencode_command("chunks-acme", "acme") == "biohybrid reencode --index chunks-acme --tenant acme"


def test_the_record_is_read_from_the_mapping_meta() -> None:
    assert index_record({}) == IndexRecord(None, None)
    models = {"dense": "minilm", "sparse": "splade-tiny"}
    assert index_record({META_KEY: models, "other": 1}) == IndexRecord(models, None)
    pending = {"to": {"dense": "bge-small-bio"}, "after": "doc-1#3"}
    assert index_record({META_KEY: models, REENCODING_KEY: pending}) == IndexRecord(
        models, Reencoding({"dense": "bge-small-bio"}, "doc-1#3")
    )
    assert Reencoding({"dense": "x"}).to_meta() == {"to": {"dense": "x"}, "after": ""}
    assert index_record({REENCODING_KEY: "garbled"}) == IndexRecord(None, None)


def test_status_describes_an_index_by_its_models_or_their_difference() -> None:
    configured = {"dense": "bge-small-bio", "sparse": "splade-tiny"}
    fix = "`biohybrid reencode --index chunks-x`"
    assert describe_index("chunks-x", IndexRecord(configured), configured) == (
        "dense bge-small-bio, sparse splade-tiny"
    )
    assert describe_index(
        "chunks-x", IndexRecord({"dense": "bge-small", "sparse": "splade-tiny"}), configured
    ) == (
        "DIFFERS: dense: the index has bge-small, configured bge-small-bio "
        f"({fix}, or query it with those models)"
    )
    assert describe_index("chunks-x", IndexRecord(None), configured) == (
        f"models not recorded (ingested before records were kept; {fix} re-encodes and records them)"
    )
    interrupted = IndexRecord(None, Reencoding(configured, "NCT01#2"))
    assert describe_index("chunks-x", interrupted, configured) == (
        "RE-ENCODING to dense bge-small-bio, sparse splade-tiny: done up to chunk NCT01#2 "
        f"({fix} finishes it)"
    )
    fresh = IndexRecord(None, Reencoding(configured))
    assert "none done yet" in describe_index("chunks-x", fresh, configured)
