"""Supported OpenSearch versions and the settings a version cannot honour."""

from __future__ import annotations

import pytest

from control_plane.config.fusion_settings import FusionWeights
from control_plane.config.settings import Settings, load_settings
from control_plane.locations import CONFIG_DIR
from control_plane.resources.catalog import Resource, ResourceKind
from control_plane.resources.versions import (
    SUPPORTED_VERSIONS,
    UnsupportedSettingError,
    Version,
    check_settings_for,
    for_version,
    is_supported,
    left_out_on,
    support_line,
    unhonoured_settings,
)


def _with_sparse_method(method: str) -> Settings:
    """The 2.19.1 node's settings (classic RRF) with ``method``."""
    settings = load_settings(CONFIG_DIR / "local-secure.yaml", environ={})
    sparse = settings.index.sparse.model_copy(update={"method": method})
    index = settings.index.model_copy(update={"sparse": sparse})
    return settings.model_copy(update={"index": index})


def test_a_version_parses_with_or_without_a_build_suffix() -> None:
    assert Version.parse("2.19.1") == Version(2, 19, 1)
    assert Version.parse("3.6.0-SNAPSHOT") == Version(3, 6, 0)
    assert str(Version.parse(" 3.10.2 ")) == "3.10.2"


@pytest.mark.parametrize("text", ["", "3.6", "three", "v3.6.0"])
def test_a_text_that_is_no_version_is_refused_by_name(text: str) -> None:
    with pytest.raises(ValueError, match="not an OpenSearch version"):
        Version.parse(text)


def test_versions_order_by_number_not_by_text() -> None:
    assert Version(2, 19, 1) < Version(3, 3, 0) < Version(3, 6, 0) < Version(3, 10, 0)


def test_the_two_built_versions_are_supported_and_no_other() -> None:
    assert [str(v) for v in SUPPORTED_VERSIONS] == ["2.19.1", "3.6.0"]
    assert is_supported(Version(2, 19, 1)) and is_supported(Version(3, 6, 0))
    assert not is_supported(Version(2, 19, 2))
    assert support_line(Version(3, 6, 0)) == "3.6.0 (supported; supported: 2.19.1, 3.6.0)"
    assert support_line(Version(2, 17, 0)).startswith("2.17.0 (NOT a supported version")


def test_seismic_is_refused_before_3_3_with_the_version_and_the_setting_named() -> None:
    seismic = _with_sparse_method("seismic")
    [problem] = unhonoured_settings(Version(2, 19, 1), seismic)
    assert "OpenSearch 2.19.1" in problem and "index.sparse.method: seismic" in problem and "3.3.0" in problem
    with pytest.raises(UnsupportedSettingError, match=r"index\.sparse\.method: seismic"):
        check_settings_for(Version(2, 19, 1), seismic)
    assert unhonoured_settings(Version(3, 3, 0), seismic) == []
    assert unhonoured_settings(Version(3, 6, 0), seismic) == []


def _with_rrf_weights(weights: FusionWeights | None) -> Settings:
    settings = load_settings(environ={})
    rrf = settings.fusion.rrf.model_copy(update={"weights": weights})
    return settings.model_copy(update={"fusion": settings.fusion.model_copy(update={"rrf": rrf})})


def test_weighted_rrf_is_refused_before_3_1_with_the_version_and_the_setting_named() -> None:
    weighted = _with_rrf_weights(FusionWeights(bm25=0.3, splade=0.1, dense=0.6))
    [problem] = unhonoured_settings(Version(2, 19, 1), weighted)
    assert "OpenSearch 2.19.1" in problem and "fusion.rrf.weights" in problem and "3.1.0" in problem
    assert unhonoured_settings(Version(3, 6, 0), weighted) == []
    assert unhonoured_settings(Version(2, 19, 1), _with_rrf_weights(None)) == []


def test_the_default_settings_run_on_every_supported_version_and_the_secure_nodes_on_2_19() -> None:
    defaults = load_settings(environ={})
    for version in SUPPORTED_VERSIONS:
        check_settings_for(version, defaults)
    secure = load_settings(CONFIG_DIR / "local-secure.yaml", environ={})
    check_settings_for(Version(2, 19, 1), secure)


def _embed_pipeline() -> Resource:
    embed = {"model_id": "d", "field_map": {"text": "e"}, "skip_existing": True}
    sparse = {"model_id": "s", "field_map": {"text": "s"}, "skip_existing": True}
    return Resource(
        ResourceKind.INGEST_PIPELINE,
        "chunk-embed",
        {"processors": [{"text_embedding": embed}, {"sparse_encoding": sparse}]},
    )


def _rewrite_pipeline() -> Resource:
    rewrite = {
        "model_id": "r",
        "model_config": {"depth": 100, "ef_search": 200},
    }
    return Resource(
        ResourceKind.SEARCH_PIPELINE,
        "clinical-rrf",
        {"request_processors": [{"oversample": {"sample_factor": 1.0}}, {"ml_inference": rewrite}]},
    )


def test_an_option_a_version_lacks_is_left_out_of_its_processors_and_nothing_else() -> None:
    pipeline, rewrite = _embed_pipeline(), _rewrite_pipeline()
    other = Resource(ResourceKind.SEARCH_PIPELINE, "p", {"request_processors": [{"skip_existing": True}]})
    [older, older_rewrite, untouched] = for_version(Version(2, 19, 1), [pipeline, rewrite, other])
    assert older.body == {
        "processors": [
            {"text_embedding": {"model_id": "d", "field_map": {"text": "e"}}},
            {"sparse_encoding": {"model_id": "s", "field_map": {"text": "s"}}},
        ]
    }
    assert older_rewrite.body["request_processors"] == [
        {"oversample": {"sample_factor": 1.0}},
        {
            "ml_inference": {
                "model_id": "r",
                "model_config": {"depth": 100, "ef_search": None},
            }
        },
    ]
    assert untouched.body == other.body
    assert pipeline.body["processors"][0]["text_embedding"]["skip_existing"] is True  # the input is kept


def test_a_version_that_has_every_option_gets_the_resources_unchanged() -> None:
    resources = [_embed_pipeline(), _rewrite_pipeline()]
    assert for_version(Version(3, 6, 0), resources) == resources


def test_a_pipeline_a_version_cannot_run_is_left_out_with_the_reason() -> None:
    rerank = Resource(ResourceKind.SEARCH_PIPELINE, "clinical-rrf-rerank", {})
    plain = Resource(ResourceKind.SEARCH_PIPELINE, "clinical-rrf", {})
    assert for_version(Version(2, 19, 1), [rerank, plain]) == [plain]
    [(label, why)] = left_out_on(Version(2, 19, 1), [rerank, plain])
    assert label == "search_pipeline/clinical-rrf-rerank" and "3.0.0" in why
    assert for_version(Version(3, 6, 0), [rerank, plain]) == [rerank, plain]


def _rrf_pipeline(combination: dict[str, object]) -> Resource:
    return Resource(
        ResourceKind.SEARCH_PIPELINE,
        "hybrid-rrf",
        {"phase_results_processors": [{"score-ranker-processor": {"combination": combination}}]},
    )


def test_before_3_1_the_rank_constant_moves_where_the_node_reads_it() -> None:
    """neural-search before 3.1 reads combination.parameters.rank_constant and ignores
    combination.rank_constant without a word."""
    pipeline = _rrf_pipeline({"technique": "rrf", "rank_constant": 20})
    [old] = for_version(Version(2, 19, 1), [pipeline])
    [ranker] = old.body["phase_results_processors"]
    assert ranker["score-ranker-processor"]["combination"] == {
        "technique": "rrf",
        "parameters": {"rank_constant": 20},
    }
    assert for_version(Version(3, 6, 0), [pipeline]) == [pipeline]
    assert pipeline.body["phase_results_processors"][0]["score-ranker-processor"]["combination"] == {
        "technique": "rrf",
        "rank_constant": 20,
    }, "the resource itself is left as it was"
