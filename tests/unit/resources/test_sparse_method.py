"""index.sparse.method rendered into the chunk template, and the two-phase processor in the search
pipelines (expected JSON written by hand)."""

from typing import Any

import pytest

from control_plane.config.settings import ConfigError, Settings, load_settings
from control_plane.resources.catalog import load_resources
from control_plane.search.request import inline_pipeline


def _resources(environ: dict[str, str]) -> dict[str, Any]:
    return {r.label: r.body for r in load_resources(load_settings(environ=environ))}


def _chunk_template(environ: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = _resources(environ)["component_template/chunk-mappings"]["template"]
    return body


def test_default_is_rank_features_without_the_sparse_index_setting() -> None:
    template = _chunk_template({})
    assert template["mappings"]["properties"]["sparse_terms"] == {"type": "rank_features"}
    assert "sparse" not in template["settings"]["index"]
    assert template["settings"]["index"]["knn"] is True


def test_seismic_renders_a_sparse_vector_with_its_parameters_and_index_sparse() -> None:
    template = _chunk_template(
        {
            "BIOHYBRID__INDEX__SPARSE__METHOD": "seismic",
            "BIOHYBRID__INDEX__SPARSE__N_POSTINGS": "300",
            "BIOHYBRID__INDEX__SPARSE__CLUSTER_RATIO": "0.2",
            "BIOHYBRID__INDEX__SPARSE__SUMMARY_PRUNE_RATIO": "0.5",
            "BIOHYBRID__INDEX__SPARSE__APPROXIMATE_THRESHOLD": "1000",
        }
    )
    assert template["mappings"]["properties"]["sparse_terms"] == {
        "type": "sparse_vector",
        "method": {
            "name": "seismic",
            "parameters": {
                "n_postings": 300,
                "cluster_ratio": 0.2,
                "summary_prune_ratio": 0.5,
                "approximate_threshold": 1000,
            },
        },
    }
    assert template["settings"]["index"]["sparse"] is True
    # OpenSearch 3.6 takes one plugin codec per index: no k-NN, the vectors stay in _source only
    assert "knn" not in template["settings"]["index"]
    assert template["mappings"]["properties"]["embedding"] == {"type": "object", "enabled": False}


def test_rank_features_keeps_the_knn_vector_field() -> None:
    embedding = _chunk_template({})["mappings"]["properties"]["embedding"]
    assert embedding == {
        "type": "knn_vector",
        "dimension": 384,
        "method": {
            "name": "hnsw",
            "engine": "faiss",
            "space_type": "innerproduct",
            "parameters": {"m": 16, "ef_construction": 128},
        },
    }


def test_seismic_without_n_postings_leaves_it_to_opensearch() -> None:
    field = _chunk_template({"BIOHYBRID__INDEX__SPARSE__METHOD": "seismic"})["mappings"]["properties"][
        "sparse_terms"
    ]
    assert field == {
        "type": "sparse_vector",
        "method": {
            "name": "seismic",
            "parameters": {
                "cluster_ratio": 0.1,
                "summary_prune_ratio": 0.4,
                "approximate_threshold": 1000000,
            },
        },
    }


TWO_PHASE = {
    "neural_sparse_two_phase_processor": {
        "enabled": True,
        "two_phase_parameter": {"prune_ratio": 0.3, "expansion_rate": 4.0, "max_window_size": 2000},
    }
}
TWO_PHASE_ENV = {
    "BIOHYBRID__SEARCH__SPARSE_TWO_PHASE__ENABLED": "true",
    "BIOHYBRID__SEARCH__SPARSE_TWO_PHASE__PRUNE_RATIO": "0.3",
    "BIOHYBRID__SEARCH__SPARSE_TWO_PHASE__EXPANSION_RATE": "4",
    "BIOHYBRID__SEARCH__SPARSE_TWO_PHASE__MAX_WINDOW_SIZE": "2000",
}


def test_two_phase_is_appended_to_every_installed_search_pipeline_when_enabled() -> None:
    off = _resources({})
    assert all(
        "request_processors" not in off[f"search_pipeline/{n}"] for n in ("hybrid-rrf", "hybrid-minmax")
    )
    on = _resources(TWO_PHASE_ENV)
    for name in ("hybrid-rrf", "hybrid-minmax", "hybrid-rrf-explain"):
        assert on[f"search_pipeline/{name}"]["request_processors"] == [TWO_PHASE]


def test_two_phase_follows_the_query_enricher_so_model_ids_are_set_first() -> None:
    settings = load_settings(environ=TWO_PHASE_ENV)
    ids = {"dense": "d", "sparse": "s"}
    pipeline = {r.name: r.body for r in load_resources(settings, ids)}["hybrid-rrf"]
    assert [next(iter(p)) for p in pipeline["request_processors"]] == [
        "neural_query_enricher",
        "neural_sparse_two_phase_processor",
    ]


def test_the_inline_pipeline_of_v1_search_gets_it_too() -> None:
    settings = load_settings(environ=TWO_PHASE_ENV)
    pipeline = inline_pipeline(settings, "rrf", None, ["splade"], 60)
    assert pipeline["request_processors"] == [TWO_PHASE]
    assert "request_processors" not in inline_pipeline(Settings(), "rrf", None, ["splade"], 60)


def test_two_phase_on_a_seismic_index_is_refused() -> None:
    with pytest.raises(ConfigError, match="two-phase"):
        load_settings(environ={**TWO_PHASE_ENV, "BIOHYBRID__INDEX__SPARSE__METHOD": "seismic"})
