"""The resources the project installs: which JSON file is which kind of OpenSearch object.

index_templates/component/*.json -> component templates, index_templates/index/*.json -> composable
index templates, index_templates/ingest/*.json -> ingest pipelines, search_pipelines/*.json -> search
pipelines (each also in an ``-explain`` form that adds per-sub-query scores). The file name is the
resource name.

Resources that name models need their ml-commons ids, known only after `models register`: without
them the ingest pipelines and the ``-rerank`` forms are left out and the search pipelines carry no
query-enricher defaults (clients then pass model ids or raw vectors/tokens themselves).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from control_plane.config.search_settings import SparseTwoPhaseSettings
from control_plane.config.settings import Settings
from control_plane.locations import RESOURCES_DIR
from control_plane.resources.render import flatten, render
from control_plane.resources.sparse import embedding_field, sparse_field, sparse_index_settings
from control_plane.resources.spelling import spelling_rules

EXPLAIN_SUFFIX = "-explain"
RERANK_SUFFIX = "-rerank"
# The clinical pipelines' form for Haystack: a Haystack Document reads its text from `content` and its
# id from `id` (everything else of _source becomes its meta), so the hits' `text` and `chunk_id` are
# renamed last. A client names the pipeline; nothing else changes on it.
HAYSTACK_SUFFIX = "-haystack"
HAYSTACK_FIELDS = {"text": "content", "chunk_id": "id"}
# How each form of a clinical pipeline maps the route model's answer into the hits (the model's
# ``output``, control_plane/clinical/pipeline.py ``RouteOutput``) and the field its last rerank sorts by.
# ``metadata`` (processors.json): one small object per hit of the window (its note and routed score), and
# after the cut to the page a second step (``PAGE_OUTPUT``) that fills each page hit's metadata object,
# which LlamaIndex and LangChain read as a document's metadata. ``fields``: the note and score beside the
# hit's fields, the Haystack form (a Haystack Document's meta is the hit's fields), with no page step.
ROUTE_OUTPUTS = {
    "metadata": ({"metadata": "metadata"}, "metadata.route_score"),
    "fields": ({"route_score": "scores", "clinical_route": "notes"}, "route_score"),
}
PAGE_OUTPUT = "page"
# The route step's description in the `fields` form (processors.json describes the `metadata` form).
FIELDS_ROUTE_DESCRIPTION = (
    "each hit's route note (clinical_route: the route applied, or why it could not run) and routed score "
    "(route_score) beside its fields, from the clinical route model over the fields routing reads of each "
    "hit; if the model cannot be reached the fused order stands and the hits carry no clinical_route"
)
ENCODER_ROLES = ("dense", "sparse")
CLINICAL_ROLES = ("clinical_rewrite", "clinical_route")
# The clinical forms of the hybrid pipelines (processors in search_pipelines/clinical/processors.json).
CLINICAL_NAMES = {"hybrid-minmax": "clinical-minmax", "hybrid-rrf": "clinical-rrf"}
# The fusion each clinical pipeline runs, as /v1/search names it: the route model's many-records
# topicality depends on it (intents.yaml many_records.min_topicality_by_fusion).
CLINICAL_FUSIONS = {"clinical-minmax": "weighted", "clinical-rrf": "rrf"}
CLINICAL_PROCESSORS = Path("search_pipelines") / "clinical" / "processors.json"
TWO_PHASE_PROCESSOR = "neural_sparse_two_phase_processor"


class ResourceKind(StrEnum):
    COMPONENT_TEMPLATE = "component_template"
    INDEX_TEMPLATE = "index_template"
    INGEST_PIPELINE = "ingest_pipeline"
    SEARCH_PIPELINE = "search_pipeline"


_FOLDERS: dict[ResourceKind, str] = {
    ResourceKind.COMPONENT_TEMPLATE: "index_templates/component",
    ResourceKind.INDEX_TEMPLATE: "index_templates/index",
    ResourceKind.INGEST_PIPELINE: "index_templates/ingest",
    ResourceKind.SEARCH_PIPELINE: "search_pipelines",
}


@dataclass(frozen=True)
class Resource:
    kind: ResourceKind
    name: str
    body: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.kind.value}/{self.name}"


def project_version() -> str:
    try:
        return version("biomed-hybrid-search")
    except PackageNotFoundError:
        return "0+unknown"


def render_params(settings: Settings, model_ids: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Parameters the resource files may use: every setting by dotted key, plus derived values."""
    params = flatten(settings.model_dump(mode="json"))
    params["fusion.weights_in_order"] = settings.fusion.weights.in_order()
    rrf_weights = settings.fusion.rrf.weights
    params["fusion.rrf.combination_parameters"] = rrf_combination_parameters(
        rrf_weights.in_order() if rrf_weights is not None else None
    )
    params["resources.version"] = project_version()
    params["index.sparse.field"] = sparse_field(settings.index.sparse)
    params["index.sparse.index_settings"] = sparse_index_settings(settings.index.sparse)
    params["index.sparse.embedding_field"] = embedding_field(settings.index.sparse, params)
    params["index.analysis.spelling_rules"] = spelling_rules()
    params.update({f"models.{role}.id": model_id for role, model_id in (model_ids or {}).items()})
    return params


def rrf_combination_parameters(weights: list[float] | None) -> dict[str, Any]:
    """What the score-ranker's ``combination`` gains: weights in sub-query order for weighted RRF,
    nothing for classic RRF (so a 2.19 node, which takes no parameters, gets the body it knows)."""
    return {} if weights is None else {"parameters": {"weights": weights}}


def load_resources(
    settings: Settings, model_ids: Mapping[str, str] | None = None, root: Path = RESOURCES_DIR
) -> list[Resource]:
    """Render every resource file under ``root`` in install order (components before index templates)."""
    ids = dict(model_ids or {})
    has_encoders = all(role in ids for role in ENCODER_ROLES)
    params = render_params(settings, ids)
    resources: list[Resource] = []
    for kind, folder in _FOLDERS.items():
        if kind is ResourceKind.INGEST_PIPELINE and not has_encoders:
            continue
        for path in sorted((root / folder).glob("*.json")):
            template = json.loads(path.read_text(encoding="utf-8"))
            body = render(template, params, source=str(path.relative_to(root)))
            if kind is not ResourceKind.SEARCH_PIPELINE:
                resources.append(Resource(kind, path.stem, body))
                continue
            body = with_sparse_two_phase(body, settings.search.sparse_two_phase)
            if has_encoders:
                body = with_query_model_defaults(
                    body, ids.get("dense_query", ids["dense"]), ids.get("sparse_query", ids["sparse"])
                )
            resources.append(Resource(kind, path.stem, body))
            resources.append(Resource(kind, path.stem + EXPLAIN_SUFFIX, with_score_explanation(body)))
            if "rerank" in ids:
                resources.append(Resource(kind, path.stem + RERANK_SUFFIX, with_rerank(body, ids["rerank"])))
            if has_encoders and all(role in ids for role in CLINICAL_ROLES) and path.stem in CLINICAL_NAMES:
                resources.extend(
                    clinical_forms(body, CLINICAL_NAMES[path.stem], params, ids.get("rerank"), root)
                )
    return resources


def clinical_forms(
    pipeline: dict[str, Any],
    name: str,
    params: Mapping[str, Any],
    rerank_id: str | None,
    root: Path = RESOURCES_DIR,
) -> list[Resource]:
    """The clinical pipeline ``name`` built on a hybrid pipeline (with its query enricher), and its
    ``-rerank`` form when a rerank model is registered."""
    path = root / CLINICAL_PROCESSORS
    fragment = render(json.loads(path.read_text(encoding="utf-8")), params, source=str(CLINICAL_PROCESSORS))
    fragment = with_route_fusion(fragment, CLINICAL_FUSIONS[name])
    clinical = with_clinical(pipeline, fragment)
    forms = [
        Resource(ResourceKind.SEARCH_PIPELINE, name, clinical),
        Resource(ResourceKind.SEARCH_PIPELINE, name + HAYSTACK_SUFFIX, with_haystack_fields(clinical)),
    ]
    if rerank_id is not None:
        reranked = with_clinical(with_rerank(pipeline, rerank_id), fragment, rerank=True)
        forms.append(Resource(ResourceKind.SEARCH_PIPELINE, name + RERANK_SUFFIX, reranked))
    return forms


def with_route_fusion(fragment: Mapping[str, Any], fusion: str) -> dict[str, Any]:
    """The clinical fragment with its route step told the pipeline's fusion (``model_config.fusion``)."""
    routed = copy.deepcopy(dict(fragment))
    for processor in routed["response_processors"]:
        if "ml_inference" in processor:
            processor["ml_inference"]["model_config"]["fusion"] = fusion
    return routed


def with_clinical(
    pipeline: dict[str, Any], fragment: Mapping[str, Any], rerank: bool = False
) -> dict[str, Any]:
    """The clinical form of a hybrid pipeline: the fragment's request processors run first (the rewrite
    must create the neural clauses before the query enricher names their models), its response
    processors after the pipeline's own (a rerank reorders the window, then routing). ``rerank``: the
    rewrite also hands the question to the rerank processor's query context."""
    fragment = copy.deepcopy(dict(fragment))
    if rerank:
        for processor in fragment["request_processors"]:
            if "ml_inference" in processor:
                processor["ml_inference"]["output_map"][0]["ext.rerank.query_context.query_text"] = (
                    "query_text"
                )
    clinical = copy.deepcopy(pipeline)
    clinical["description"] = f"{fragment['description']} Fusion: {pipeline.get('description', '')}"
    clinical["request_processors"] = [
        *fragment["request_processors"],
        *pipeline.get("request_processors", []),
    ]
    clinical["response_processors"] = [
        *pipeline.get("response_processors", []),
        *fragment["response_processors"],
    ]
    return clinical


def with_route_output(pipeline: Mapping[str, Any], output: str) -> dict[str, Any]:
    """A clinical pipeline whose window's route step answers in ``output``'s shape (``ROUTE_OUTPUTS``),
    mapped into the hits and sorted by; the page's metadata step (``PAGE_OUTPUT``) stays only in the
    ``metadata`` form (the ``fields`` form's hits carry their note beside their fields)."""
    output_map, sort_field = ROUTE_OUTPUTS[output]
    routed = copy.deepcopy(dict(pipeline))
    sorts = {sort for _, sort in ROUTE_OUTPUTS.values()}
    steps = []
    for processor in routed["response_processors"]:
        inference = processor.get("ml_inference")
        if inference is not None and inference["model_config"].get("output") == PAGE_OUTPUT:
            if output == "metadata":
                steps.append(processor)
            continue
        if inference is not None:
            inference["model_config"]["output"] = output
            inference["output_map"] = [dict(output_map)]
            if output == "fields":
                inference["description"] = FIELDS_ROUTE_DESCRIPTION
        by_field = processor.get("rerank", {}).get("by_field", {})
        if by_field.get("target_field") in sorts:
            by_field["target_field"] = sort_field
            # the metadata form's page step reads the routed score; beside the hit's fields it is dropped
            by_field["remove_target_field"] = output == "fields"
        steps.append(processor)
    routed["response_processors"] = steps
    return routed


def with_haystack_fields(pipeline: dict[str, Any]) -> dict[str, Any]:
    """The Haystack form of a clinical pipeline: its route note and score beside the hit's fields (a
    Haystack Document's meta) rather than in a metadata object, and its hits' ``text`` and ``chunk_id``
    renamed to what a Haystack Document reads (``HAYSTACK_FIELDS``), after every other response step."""
    renamed = with_route_output(pipeline, "fields")
    renamed["description"] = (
        f"{pipeline.get('description', '')} For Haystack: a hit's text is its content, its chunk_id its id."
    )
    renamed.setdefault("response_processors", []).extend(
        {"rename_field": {"field": field, "target_field": target, "ignore_missing": True}}
        for field, target in HAYSTACK_FIELDS.items()
    )
    return renamed


def sparse_two_phase_processor(two_phase: SparseTwoPhaseSettings) -> dict[str, Any]:
    """neural-search's two-phase request processor with the configured parameters."""
    return {
        TWO_PHASE_PROCESSOR: {
            "enabled": two_phase.enabled,
            "two_phase_parameter": {
                "prune_ratio": two_phase.prune_ratio,
                "expansion_rate": two_phase.expansion_rate,
                "max_window_size": two_phase.max_window_size,
            },
        }
    }


def with_sparse_two_phase(pipeline: dict[str, Any], two_phase: SparseTwoPhaseSettings) -> dict[str, Any]:
    """The pipeline with the two-phase processor appended to its request processors when enabled
    (unchanged otherwise). It acts on a top-level or bool-should neural_sparse query over rank_features;
    OpenSearch 3.6 leaves a neural_sparse inside a hybrid query as it is."""
    if not two_phase.enabled:
        return pipeline
    pruned = copy.deepcopy(pipeline)
    pruned["request_processors"] = [
        *pruned.get("request_processors", []),
        sparse_two_phase_processor(two_phase),
    ]
    return pruned


def with_query_model_defaults(pipeline: dict[str, Any], dense_id: str, sparse_id: str) -> dict[str, Any]:
    """Add the neural_query_enricher, so `neural` and `neural_sparse` queries with only `query_text`
    use the registered models: clients never pass model ids. ``dense_id`` is the query-side dense model
    (the model's query prefix applied); ``sparse_id`` the query-side sparse model: SPLADE (bi-encoder)
    or the doc-only tokenizer."""
    enriched = copy.deepcopy(pipeline)
    enricher = {
        "neural_query_enricher": {
            "description": "Default models for neural (dense) and neural_sparse (sparse_terms) queries",
            "default_model_id": dense_id,
            "neural_field_default_id": {"sparse_terms": sparse_id, "embedding": dense_id},
        }
    }
    enriched["request_processors"] = [enricher, *enriched.get("request_processors", [])]
    return enriched


def with_rerank(pipeline: dict[str, Any], rerank_id: str) -> dict[str, Any]:
    """The rerank form: after fusion, the rerank model rescores the returned hits against the chunk
    text (the query comes from ``ext.rerank.query_context.query_text``; ``size`` is the depth). The
    rerank never fails the search: the service answers the fused order when the model misses its budget,
    is overloaded or not loaded (control_plane/inference/app.py), and ``ignore_failure`` keeps the fused
    order when the step itself fails (the service unreachable, a request without ``ext.rerank``)."""
    reranked = copy.deepcopy(pipeline)
    reranked["description"] = (
        f"{pipeline.get('description', '')} Reranked by model {rerank_id} over chunk text "
        "(the fused order when the reranker misses its budget or cannot be reached)."
    )
    processor = {
        "rerank": {
            "ml_opensearch": {"model_id": rerank_id},
            "context": {"document_fields": ["text"]},
            "ignore_failure": True,
        }
    }
    reranked.setdefault("response_processors", []).append(processor)
    return reranked


def with_score_explanation(pipeline: dict[str, Any]) -> dict[str, Any]:
    """The explain form of a hybrid pipeline: adds the response processor that reports, per hit, each
    sub-query's raw and normalised score (queries must also set ``"explain": true``)."""
    explained = copy.deepcopy(pipeline)
    explained["description"] = f"{pipeline.get('description', '')} With per-sub-query score explanation."
    explained.setdefault("response_processors", []).append({"hybrid_score_explanation": {}})
    return explained
