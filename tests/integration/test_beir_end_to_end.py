"""NFCorpus and SciFact, end to end on fixed slices (conftest BEIR_SLICES: judged queries, all their
judged documents, seeded distractors): indexed by the project's ingest (parse, chunk, encode, bulk),
searched with plain text through both fusion pipelines, and evaluated through SearchService.

Slice figures are regression anchors, not comparable to full-corpus ones (a small corpus dense in
relevant documents scores higher). The full-corpus check against Anserini's BM25 lives in the
evaluation command and its committed report (model_artifacts/reports/evaluation-nfcorpus-test/)."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from integration.conftest import SliceIndex
from integration.service import registered_models
from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.evaluation.api import EvaluateRequest, evaluate
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.measures.metrics import ndcg_at_k
from control_plane.query.components import text_hybrid_query
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import load_test_set

pytestmark = pytest.mark.integration

# Plain-text queries through each pipeline: the slice's queries of a non-test split.
SEARCH_SPLITS = {"nfcorpus": "dev", "scifact": "train"}
# A floor well under what these models reach on the slices: "searchable" means relevant documents come
# back, not a tuned figure.
NDCG_FLOOR = {"nfcorpus": 0.3, "scifact": 0.6}
# Recorded by this test's configurations on the same slice (see the file for the command and machine);
# a change beyond the tolerance means ranking changed: re-record only when the change is intended, with
# BIOHYBRID_RECORD_SLICE_BASELINE=1 pytest tests/integration/test_beir_end_to_end.py -k recorded_quality
BASELINE_FILE = Path(__file__).with_name("data") / "beir_slice_baseline.json"
RECORD_ENV = "BIOHYBRID_RECORD_SLICE_BASELINE"
TOLERANCE = 0.02
FUSION_NOISE = 0.01  # nDCG@10 on 40 queries
CONFIGURATIONS = ["bm25", "splade", "dense", "hybrid-minmax", "hybrid-rrf"]
METRICS = ["ndcg@10", "recall@100"]


@pytest.fixture(scope="module")
def with_models(client: OpenSearch, beir_slices: dict[str, SliceIndex]) -> Iterator[Settings]:
    with registered_models(client) as settings:
        yield settings


@pytest.mark.parametrize("dataset", ["nfcorpus", "scifact"])
def test_every_document_is_indexed_once(
    client: OpenSearch, beir_slices: dict[str, SliceIndex], dataset: str
) -> None:
    item = beir_slices[dataset]
    summary = item.summary
    assert (summary.documents, summary.parse_errors, summary.index_failures) == (item.built.documents, 0, 0)
    assert client.count(index=item.index)["count"] == summary.chunks
    distinct = client.search(
        index=item.index,
        body={
            "size": 0,
            "aggs": {"docs": {"cardinality": {"field": "doc_id", "precision_threshold": 10000}}},
        },
    )["aggregations"]["docs"]["value"]
    assert distinct == item.built.documents  # exact below the precision threshold


@pytest.mark.parametrize("pipeline", ["hybrid-rrf", "hybrid-minmax"])
@pytest.mark.parametrize("dataset", ["nfcorpus", "scifact"])
def test_plain_text_search_through_each_fusion_pipeline_finds_relevant_documents(
    client: OpenSearch, beir_slices: dict[str, SliceIndex], with_models: Settings, dataset: str, pipeline: str
) -> None:
    item = beir_slices[dataset]
    test_set = load_test_set(item.built.test_set_id(SEARCH_SPLITS[dataset]))
    qrels = test_set.qrels()
    scores = []
    for query in test_set.queries():
        body = {"size": 30, "_source": ["doc_id"], "query": text_hybrid_query(query.text)}
        hits = client.search(index=item.index, params={"search_pipeline": pipeline}, body=body)["hits"][
            "hits"
        ]
        assert hits, (dataset, pipeline, query.query_id)
        ranking = list(dict.fromkeys(hit["_source"]["doc_id"] for hit in hits))  # best chunk per document
        scores.append(ndcg_at_k(qrels[query.query_id], ranking, 10))
    mean = sum(scores) / len(scores)
    assert len(scores) == item.built.queries[SEARCH_SPLITS[dataset]]
    assert mean >= NDCG_FLOOR[dataset], (dataset, pipeline, mean)


def test_nfcorpus_test_queries_on_the_slice_hold_their_recorded_quality(
    client: OpenSearch, settings: Settings, beir_slices: dict[str, SliceIndex]
) -> None:
    """Each configuration within TOLERANCE of its recorded figures on the slice's nfcorpus/test queries,
    and hybrid fusion above the best single component on nDCG@10 (issue 6)."""
    item = beir_slices["nfcorpus"]
    packaged = load_evaluation_settings(environ={})
    evaluation = packaged.model_copy(update={"indices": {item.built.folder.name: item.index}})
    request = EvaluateRequest(
        test_set_id=item.built.test_set_id("test"),
        configurations=CONFIGURATIONS,
        metrics=METRICS,
        store=False,
    )
    result = evaluate(request, SearchService(client, settings), None, settings=evaluation)
    measured = {c.configuration: {m: round(c.metrics[m], 4) for m in METRICS} for c in result.configurations}
    assert result.query_count == item.built.queries["test"]
    if os.environ.get(RECORD_ENV) == "1":
        _record(measured, item.built.queries["test"])
        pytest.skip(f"re-recorded {BASELINE_FILE.name}: review the diff, then run again without {RECORD_ENV}")
    recorded = json.loads(BASELINE_FILE.read_text())["nfcorpus-slice:test"]
    for configuration, metrics in recorded.items():
        for metric, value in metrics.items():
            assert abs(measured[configuration][metric] - value) <= TOLERANCE, (
                configuration,
                metric,
                measured,
            )
    # Fusion earns its place on ranking quality: both fusions above each lexical component on nDCG@10, and
    # the default min-max fusion not below the best single component by more than noise. On 40 queries, that
    # is all a slice can show: with bge-small-bio, dense alone scores 0.3626 here against min-max's 0.3554
    # (recorded), while on the full splits min-max is above dense alone (nfcorpus/dev +0.010, p 0.01; the
    # 300 held-out scifact/train claims +0.028, p 0.002; reports/fusion-grid/bge-small-bio-dev.md).
    # RRF at the product's k = 60 (equal votes) is not held to dense: with a dense model this much stronger
    # than BM25 and SPLADE it falls below dense alone on the full splits too (-0.004 and -0.027, same report).
    lexical = max(measured[c]["ndcg@10"] for c in ("bm25", "splade"))
    best_single = max(lexical, measured["dense"]["ndcg@10"])
    assert measured["hybrid-rrf"]["ndcg@10"] > lexical, measured
    assert measured["hybrid-minmax"]["ndcg@10"] > lexical, measured
    assert measured["hybrid-minmax"]["ndcg@10"] > best_single - FUSION_NOISE, measured


def _record(measured: dict[str, dict[str, float]], queries: int) -> None:
    """Rewrite the baseline with what this run measured, saying how, where and with which models."""
    from control_plane.config.settings import load_settings

    models = load_settings().models
    recorded = (
        f"{RECORD_ENV}=1 pytest tests/integration/test_beir_end_to_end.py -k recorded_quality, "
        f"{datetime.now(UTC):%Y-%m-%d}, {platform.node()} ({os.cpu_count()} cores), OpenSearch local node, "
        f"{models.dense} + {models.sparse}; slice nfcorpus-slice (conftest BEIR_SLICES), "
        f"{queries} test queries"
    )
    BASELINE_FILE.write_text(
        json.dumps({"recorded": recorded, "nfcorpus-slice:test": measured}, indent=2) + "\n", encoding="utf-8"
    )
