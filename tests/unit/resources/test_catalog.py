from typing import Any

from control_plane.config.fusion_settings import FusionWeights
from control_plane.config.settings import LOCAL_FILE, load_settings
from control_plane.resources.catalog import ResourceKind, load_resources


def _by_label(settings_file: Any = None) -> dict[str, Any]:
    settings = load_settings(settings_file, environ={})
    return {r.label: r.body for r in load_resources(settings)}


def test_production_form_uses_faiss_hnsw_with_configured_parameters() -> None:
    mappings = _by_label()["component_template/chunk-mappings"]["template"]["mappings"]
    embedding = mappings["properties"]["embedding"]
    assert embedding["type"] == "knn_vector"
    assert embedding["dimension"] == 384
    assert embedding["method"] == {
        "name": "hnsw",
        "engine": "faiss",
        "space_type": "innerproduct",
        "parameters": {"m": 16, "ef_construction": 128},
    }


def test_local_form_differs_only_in_engine() -> None:
    prod, local = _by_label(), _by_label(LOCAL_FILE)
    engine = local["component_template/chunk-mappings"]["template"]["mappings"]["properties"]["embedding"]
    assert engine["method"]["engine"] == "lucene"
    engine["method"]["engine"] = "faiss"
    assert prod == local


def test_chunk_fields_have_the_documented_types() -> None:
    template = _by_label()["component_template/chunk-mappings"]["template"]
    props = template["mappings"]["properties"]
    for field in ("text", "title_path", "facet_json", "table_lines"):
        assert props[field]["type"] == "text"
        assert props[field]["analyzer"] == "biomedical_english"
        assert props[field]["similarity"] == "chunk_bm25"
    for field in (
        "chunk_id",
        "doc_id",
        "tenant_id",
        "source",
        "section",
        "section_label",
        "intent_hint",
        "doc_type",
    ):
        assert props[field]["type"] == "keyword"
    assert props["is_table"]["type"] == "boolean"
    assert props["publication_date"]["type"] == "date"
    assert props["start"]["type"] == props["end"]["type"] == "integer"
    assert props["table_html"] == {"type": "text", "index": False, "store": True}
    assert props["sparse_terms"]["type"] == "rank_features"
    assert template["settings"]["index"]["similarity"]["chunk_bm25"] == {"type": "BM25", "k1": 1.2, "b": 0.75}


def test_bm25_parameters_come_from_settings() -> None:
    settings = load_settings(
        environ={"BIOHYBRID__INDEX__BM25__K1": "0.9", "BIOHYBRID__INDEX__BM25__B": "0.4"}
    )
    bodies = {r.label: r.body for r in load_resources(settings)}
    sim = bodies["component_template/chunk-mappings"]["template"]["settings"]["index"]["similarity"]
    assert sim["chunk_bm25"] == {"type": "BM25", "k1": 0.9, "b": 0.4}


def test_pipelines_carry_the_spec_fusion_parameters() -> None:
    bodies = _by_label()
    minmax = bodies["search_pipeline/hybrid-minmax"]["phase_results_processors"][0]["normalization-processor"]
    assert minmax["normalization"] == {"technique": "min_max"}
    assert minmax["combination"] == {
        "technique": "arithmetic_mean",
        "parameters": {"weights": [0.20, 0.20, 0.60]},
    }
    rrf = bodies["search_pipeline/hybrid-rrf"]["phase_results_processors"][0]["score-ranker-processor"]
    assert rrf == {"combination": {"technique": "rrf", "rank_constant": 60}}


def test_every_pipeline_has_an_explain_form() -> None:
    settings = load_settings(environ={})
    pipelines = {r.name: r.body for r in load_resources(settings) if r.kind is ResourceKind.SEARCH_PIPELINE}
    for name in ("hybrid-minmax", "hybrid-rrf"):
        explain = pipelines[f"{name}-explain"]
        assert explain["phase_results_processors"] == pipelines[name]["phase_results_processors"]
        assert explain["response_processors"] == [{"hybrid_score_explanation": {}}]
        assert "response_processors" not in pipelines[name]


def test_components_install_before_the_index_template() -> None:
    labels = [r.label for r in load_resources(load_settings(environ={}))]
    assert labels.index("index_template/chunks") > labels.index("component_template/chunk-mappings")


IDS = {"dense": "dense-id", "sparse": "sparse-id", "rerank": "rerank-id"}


def test_model_resources_appear_only_with_model_ids() -> None:
    settings = load_settings(environ={})
    without = {r.label for r in load_resources(settings)}
    with_ids = {r.label: r.body for r in load_resources(settings, IDS)}
    assert "ingest_pipeline/chunk-embed" not in without
    assert not any(label.endswith("-rerank") for label in without)
    assert set(with_ids) - without == {
        "ingest_pipeline/chunk-embed",
        "search_pipeline/hybrid-minmax-rerank",
        "search_pipeline/hybrid-rrf-rerank",
    }


def test_ingest_pipeline_encodes_text_with_both_models() -> None:
    body = {r.label: r.body for r in load_resources(load_settings(environ={}), IDS)}[
        "ingest_pipeline/chunk-embed"
    ]
    [dense, sparse] = body["processors"]
    assert dense["text_embedding"]["model_id"] == "dense-id"
    assert dense["text_embedding"]["field_map"] == {"text": "embedding"}
    assert sparse["sparse_encoding"]["model_id"] == "sparse-id"
    assert sparse["sparse_encoding"]["field_map"] == {"text": "sparse_terms"}


def test_search_pipelines_default_the_query_models_and_rerank_form_adds_rerank() -> None:
    bodies = {r.label: r.body for r in load_resources(load_settings(environ={}), IDS)}
    for name in ("hybrid-minmax", "hybrid-rrf", "hybrid-rrf-explain", "hybrid-rrf-rerank"):
        [enricher] = bodies[f"search_pipeline/{name}"]["request_processors"]
        assert enricher["neural_query_enricher"]["default_model_id"] == "dense-id"
        assert enricher["neural_query_enricher"]["neural_field_default_id"]["sparse_terms"] == "sparse-id"
    rerank = bodies["search_pipeline/hybrid-rrf-rerank"]["response_processors"]
    # ignore_failure: a rerank step that fails (the service unreachable, no ext.rerank) keeps the fused order
    assert rerank == [
        {
            "rerank": {
                "ml_opensearch": {"model_id": "rerank-id"},
                "context": {"document_fields": ["text"]},
                "ignore_failure": True,
            }
        }
    ]
    assert (
        bodies["search_pipeline/hybrid-rrf-rerank"]["phase_results_processors"]
        == bodies["search_pipeline/hybrid-rrf"]["phase_results_processors"]
    )


def test_weighted_rrf_reaches_every_rrf_pipeline_and_classic_rrf_carries_no_parameters() -> None:
    settings = load_settings(environ={})
    ids = {**IDS, "clinical_rewrite": "rewrite-id", "clinical_route": "route-id"}
    for weights, expected in (
        (FusionWeights(bm25=0.3, splade=0.1, dense=0.6), {"parameters": {"weights": [0.3, 0.1, 0.6]}}),
        (None, {}),
    ):
        rrf = settings.fusion.rrf.model_copy(update={"weights": weights})
        chosen = settings.model_copy(update={"fusion": settings.fusion.model_copy(update={"rrf": rrf})})
        bodies = {r.label: r.body for r in load_resources(chosen, ids)}
        for name in ("hybrid-rrf", "hybrid-rrf-explain", "hybrid-rrf-rerank", "clinical-rrf"):
            [ranker] = [
                p["score-ranker-processor"]
                for p in bodies[f"search_pipeline/{name}"]["phase_results_processors"]
                if "score-ranker-processor" in p
            ]
            assert ranker["combination"] == {"technique": "rrf", "rank_constant": 60, **expected}, name


def test_each_clinical_pipeline_tells_its_route_step_its_fusion() -> None:
    from control_plane.config.settings import load_settings
    from control_plane.resources.catalog import load_resources

    ids = {role: f"{role}-id" for role in ("dense", "sparse", "clinical_rewrite", "clinical_route")}
    pipelines = {r.name: r.body for r in load_resources(load_settings(), ids) if r.kind == "search_pipeline"}

    def fusion(name: str) -> str:
        steps = [p["ml_inference"] for p in pipelines[name]["response_processors"] if "ml_inference" in p]
        assert len(steps) == (1 if name.endswith("-haystack") else 2)  # the route; the page's metadata
        return str(steps[0]["model_config"]["fusion"])

    assert fusion("clinical-minmax") == fusion("clinical-minmax-haystack") == "weighted"
    assert fusion("clinical-rrf") == fusion("clinical-rrf-haystack") == "rrf"


def test_each_clinical_form_maps_the_route_answer_its_clients_read() -> None:
    """The plain and rerank forms take one metadata object per hit (LlamaIndex's and LangChain's document
    metadata, with the route note inside) and sort by its routed score; the Haystack form takes the note
    and score beside the hit's fields (a Haystack Document's meta). Each form's mapping names exactly what
    the route model answers in its output (clinical/pipeline.py ``Route.answer``)."""
    from control_plane.clinical.pipeline import Route, page_metadata
    from control_plane.config.settings import load_settings
    from control_plane.resources.catalog import ROUTE_OUTPUTS, load_resources

    ids = {role: f"{role}-id" for role in ("dense", "sparse", "clinical_rewrite", "clinical_route", "rerank")}
    pipelines = {r.name: r.body for r in load_resources(load_settings(), ids) if r.kind == "search_pipeline"}

    def route_step(name: str) -> tuple[list[str], dict[str, str], list[str]]:
        steps = pipelines[name]["response_processors"]
        inference = [p["ml_inference"] for p in steps if "ml_inference" in p]
        sorts = [p["rerank"]["by_field"]["target_field"] for p in steps if "by_field" in p.get("rerank", {})]
        return [i["model_config"]["output"] for i in inference], inference[0]["output_map"][0], sorts

    for name in ("clinical-minmax", "clinical-rrf", "clinical-rrf-rerank"):
        by_field = [
            p["rerank"]["by_field"]
            for p in pipelines[name]["response_processors"]
            if "by_field" in p.get("rerank", {})
        ]
        assert by_field[-1]["remove_target_field"] is False  # the page step tells answered hits by it
        assert route_step(name) == (
            ["metadata", "page"],
            {"metadata": "metadata"},
            ["start", "previous_score", "metadata.route_score"],
        )
        steps = pipelines[name]["response_processors"]
        names = [next(iter(p)) for p in steps]
        assert names[-2:] == ["truncate_hits", "ml_inference"]  # the page's metadata: the page alone
        page = steps[-1]["ml_inference"]
        assert page["override"] is True and page["output_map"] == [{"metadata": "metadata"}]
    for name in ("clinical-minmax-haystack", "clinical-rrf-haystack"):
        outputs, mapping, sorts = route_step(name)
        assert (outputs, sorts[-1]) == (["fields"], "route_score")
        by_field = [
            p["rerank"]["by_field"]
            for p in pipelines[name]["response_processors"]
            if "by_field" in p.get("rerank", {})
        ]
        assert by_field[-1]["remove_target_field"] is True  # not left beside the hit's fields
        assert mapping == {"route_score": "scores", "clinical_route": "notes"}
        [described] = [
            p["ml_inference"]["description"]
            for p in pipelines[name]["response_processors"]
            if "ml_inference" in p
        ]
        assert "metadata" not in described and "clinical_route" in described
    answer = Route(scores=(0.5,), notes=("n",))
    metadata_map, metadata_sort = ROUTE_OUTPUTS["metadata"]
    answered = answer.answer("metadata")
    assert set(metadata_map.values()) == set(answered)
    assert metadata_sort == "metadata.route_score" and "route_score" in answered["metadata"][0]
    assert set(metadata_map.values()) == set(page_metadata([{"doc_id": "A"}], "intents=none; not lifted"))
    fields_map, fields_sort = ROUTE_OUTPUTS["fields"]
    assert set(fields_map.values()) == set(answer.answer("fields"))
    assert fields_sort in fields_map
