"""What a run evaluates: queries with their qrels and query types, from a test set id.

An id is a test set (``nfcorpus/dev``, ``<folder>:<split>``) or a stratified set named in the
evaluation settings (``nfcorpus/stratified``). Only queries with a relevant document are kept: the
metrics score the others 0 for every configuration, so searching them would only cost time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from control_plane.clinical.query_types import classify_query
from control_plane.evaluation.settings import StratifiedSetSettings
from control_plane.measures.metrics import Qrels
from control_plane.testsets.catalog import Query, TestSet, load_test_set
from control_plane.testsets.stratify import STRATIFICATION_RULE, Stratification, classify_all, stratify

Classifier = Callable[[str], str]


@dataclass(frozen=True)
class EvaluationSet:
    test_set_id: str
    dataset: str  # the corpus folder's name: picks the index to search
    queries: tuple[Query, ...]
    qrels: Qrels
    query_types: Mapping[str, str]
    stratification: Stratification | None = None


def _judged_queries(test_set: TestSet) -> list[Query]:
    qrels = test_set.qrels()
    return [q for q in test_set.queries() if any(grade > 0 for grade in qrels[q.query_id].values())]


def _from_test_set(test_set_id: str, classify: Classifier, limit: int | None) -> EvaluationSet:
    test_set = load_test_set(test_set_id)
    queries = _judged_queries(test_set)[:limit]
    qrels = test_set.qrels()
    return EvaluationSet(
        test_set_id=test_set_id,
        dataset=test_set.folder.name,
        queries=tuple(queries),
        qrels={q.query_id: qrels[q.query_id] for q in queries},
        query_types=classify_all(queries, classify),
    )


def _stratified(
    test_set_id: str, spec: StratifiedSetSettings, classify: Classifier, limit: int | None
) -> EvaluationSet:
    sources = [load_test_set(source) for source in spec.sources]
    folders = {source.folder.resolve() for source in sources}
    if len(folders) != 1:
        raise ValueError(
            f"stratified set {test_set_id!r}: sources {spec.sources} come from different corpora"
        )
    pooled: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    for source in sources:
        for query in _judged_queries(source):
            if query.query_id in qrels:
                raise ValueError(f"stratified set {test_set_id!r}: query {query.query_id} is in two sources")
            pooled.append(query)
            qrels[query.query_id] = dict(source.qrels()[query.query_id])
    types = classify_all(pooled, classify)
    rule = STRATIFICATION_RULE.format(sources=", ".join(spec.sources), per_type=spec.per_type, seed=spec.seed)
    chosen = stratify(pooled, types, spec.per_type, spec.seed, rule)
    by_id = {query.query_id: query for query in pooled}
    query_ids = chosen.query_ids[:limit]
    return EvaluationSet(
        test_set_id=test_set_id,
        dataset=sources[0].folder.name,
        queries=tuple(by_id[query_id] for query_id in query_ids),
        qrels={query_id: qrels[query_id] for query_id in query_ids},
        query_types={query_id: types[query_id] for query_id in query_ids},
        stratification=chosen,
    )


def load_evaluation_set(
    test_set_id: str,
    stratified_sets: Mapping[str, StratifiedSetSettings] | None = None,
    *,
    limit: int | None = None,
    classify: Classifier = classify_query,
) -> EvaluationSet:
    """The judged queries of ``test_set_id`` (the first ``limit`` if given), typed by ``classify``."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be >= 1, got {limit}")
    spec = (stratified_sets or {}).get(test_set_id)
    if spec is not None:
        return _stratified(test_set_id, spec, classify, limit)
    return _from_test_set(test_set_id, classify, limit)
