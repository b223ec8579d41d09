"""The runs against the stack: each form's ranking per question, and the latency breakdown of the plain
form (temporary pipelines cut down from the installed clinical pipeline, removed afterwards)."""

from __future__ import annotations

import copy
import statistics
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final

from opensearchpy import OpenSearch

from benchmarks.client_forms.forms import FORMS, PLAIN, Form
from benchmarks.clinical_pipelines.measure import LEAN_SOURCE, judged_questions
from control_plane.measures.metrics import ndcg_at_k
from control_plane.query.components import text_hybrid_query

K: Final = 10
Ranker = Callable[[str], list[str]]
EXPLICIT: Final = "explicit hybrid query, hybrid-minmax (pagination_depth 100)"
REWRITE_ONLY: Final = "plain form, rewrite only (no window, no routing)"
WINDOW: Final = "plain form, rewrite + routing window (no routing)"
PLAIN_FORM: Final = "plain form, clinical-minmax (rewrite + window + routing)"
_TEMPORARY: Final = {REWRITE_ONLY: "bench-client-forms-rewrite", WINDOW: "bench-client-forms-window"}


def _hits(client: OpenSearch, index: str, pipeline: str, body: dict[str, Any], size: int) -> list[Any]:
    """The hits a form's ``body`` gets through ``pipeline``, ``size`` of them (stored vectors left out
    unless the form chooses its own ``_source``)."""
    answer = client.search(
        index=index, params={"search_pipeline": pipeline}, body={"size": size, "_source": LEAN_SOURCE, **body}
    )
    return list(answer["hits"]["hits"])


def form_ranker(client: OpenSearch, index: str, pipeline: str, form: Form) -> Ranker:
    """The chunk ids a form's body gets through ``pipeline``."""

    def rank(text: str) -> list[str]:
        return [hit["_id"] for hit in _hits(client, index, pipeline, form(text), K)]

    return rank


def kept_to_sources(hits: list[dict[str, Any]], sources: tuple[str, ...], k: int = K) -> list[str]:
    """The first ``k`` chunk ids among ``hits`` whose source is one of ``sources``."""
    return [hit["_id"] for hit in hits if hit["_source"].get("source") in sources][:k]


def plain_kept_ranker(
    client: OpenSearch, index: str, pipeline: str, window: int, sources: tuple[str, ...]
) -> Ranker:
    """The plain form's answer with the other sources' hits taken out: the whole routed window (a page of
    ``window`` hits is routed exactly as a page of ten), then the first ten of ``sources``."""

    def rank(text: str) -> list[str]:
        return kept_to_sources(_hits(client, index, pipeline, FORMS[PLAIN](text), window), sources)

    return rank


def mean_ndcg(split: str, rank: Ranker) -> tuple[int, float]:
    """(questions, mean nDCG@10) of a ranker over a split's judged questions."""
    questions, qrels = judged_questions(split)
    return len(questions), statistics.mean(ndcg_at_k(qrels[q.query_id], rank(q.text), K) for q in questions)


def _cut_down(clinical: Mapping[str, Any], window: bool) -> dict[str, Any]:
    """The installed clinical pipeline with its routing removed: its rewrite (and, with ``window``, the
    steps that fuse the routing window and cut it back) and the fusion, nothing else."""
    body = copy.deepcopy(dict(clinical))
    keep = {"ml_inference", "neural_query_enricher", "neural_sparse_two_phase_processor"}
    if window:
        keep |= {"oversample", "script"}
    body["request_processors"] = [p for p in body.get("request_processors", []) if set(p) & keep]
    body["response_processors"] = [{"truncate_hits": {}}] if window else []
    body["description"] = "temporary: client_forms benchmark latency breakdown"
    return body


@contextmanager
def breakdown_pipelines(client: OpenSearch) -> Iterator[dict[str, str]]:
    """Pipeline name per breakdown label, the temporary ones installed for the run and removed after."""
    clinical = client.search_pipeline.get(id="clinical-minmax")["clinical-minmax"]
    for label, name in _TEMPORARY.items():
        client.search_pipeline.put(id=name, body=_cut_down(clinical, window=label == WINDOW))
    try:
        yield {EXPLICIT: "hybrid-minmax", **_TEMPORARY, PLAIN_FORM: "clinical-minmax"}
    finally:
        for name in _TEMPORARY.values():
            client.search_pipeline.delete(id=name)


def timed_calls(
    client: OpenSearch, index: str, pipelines: Mapping[str, str], depth: int
) -> dict[str, Callable[[str], object]]:
    """One call per breakdown label: the explicit query, or the plain form through its pipeline."""

    def call(label: str) -> Callable[[str], object]:
        def send(text: str) -> object:
            query = (
                text_hybrid_query(text, pagination_depth=depth)
                if label == EXPLICIT
                else {"match": {"text": text}}
            )
            body = {"size": K, "query": query, "_source": LEAN_SOURCE}
            return client.search(index=index, params={"search_pipeline": pipelines[label]}, body=body)

        return send

    return {label: call(label) for label in pipelines}
