"""Inference-free sparse queries: a tokenizer + IDF model deployed inside OpenSearch encodes the query."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.names import session_index
from integration.node_state import isolated_settings
from integration.service import reapply_session_resources, running_service
from opensearchpy import OpenSearch
from tokenizers import Tokenizer

from control_plane.cluster.manage import apply_resources
from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.mlcommons.doc_only import corpus_idf
from control_plane.mlcommons.registry import deployed_model_ids, register_models
from control_plane.models.sparse import SparseEncoder
from control_plane.resources.catalog import load_resources

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def doc_only(
    client: OpenSearch, applied: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Settings]:
    index = session_index("doconly")
    encoder, _ = python_encoder(applied)
    dead = DeadLetterFile(tmp_path_factory.mktemp("dl") / "dl.jsonl")
    ingest(client, ["pmc"], IngestOptions(index=index, strategy="section", progress=False), encoder, dead)
    try:
        with running_service() as url:
            settings = isolated_settings(
                url,
                BIOHYBRID__MODELS__SPARSE_QUERY_MODE="doc-only",
                BIOHYBRID__MODELS__DOC_ONLY_IDF_INDEX=index,
            )
            ids = {m.role: m.model_id for m in register_models(client, settings)}
            apply_resources(client, settings, load_resources(settings, ids))
            try:
                yield settings
            finally:
                reapply_session_resources(client)
    finally:
        client.indices.delete(index=index, ignore_unavailable=True)


def test_query_tokens_are_weighted_by_the_corpus_idf(client: OpenSearch, doc_only: Settings) -> None:
    ids = deployed_model_ids(client, doc_only)
    assert {"dense", "sparse", "rerank", "sparse_query"} <= set(ids)
    tokenizer_path = SparseEncoder.load().model.files.tokenizer
    idf = corpus_idf(client, doc_only.models.doc_only_idf_index, Path(tokenizer_path))
    text = "tumour cells were treated"
    response = client.transport.perform_request(
        "POST", f"/_plugins/_ml/_predict/sparse_tokenize/{ids['sparse_query']}", body={"text_docs": [text]}
    )
    [weights] = response["inference_results"][0]["output"][0]["dataAsMap"]["response"]
    tokens = Tokenizer.from_file(str(tokenizer_path)).encode(text, add_special_tokens=False).tokens
    assert set(weights) == set(tokens)
    for token in tokens:
        assert weights[token] == pytest.approx(idf[token], rel=1e-5)


def test_pipelines_default_sparse_queries_to_the_tokenizer_model(
    client: OpenSearch, doc_only: Settings
) -> None:
    # In doc-only mode the pipelines' default for sparse_terms is the tokenizer model, which runs
    # inside OpenSearch (a SPARSE_TOKENIZE model, not a connector to the inference service).
    pipeline = client.search_pipeline.get(id="hybrid-rrf")["hybrid-rrf"]
    enricher = pipeline["request_processors"][0]["neural_query_enricher"]
    ids = deployed_model_ids(client, doc_only)
    assert enricher["neural_field_default_id"]["sparse_terms"] == ids["sparse_query"]
    body = {
        "size": 5,
        "query": {
            "hybrid": {"queries": [{"neural_sparse": {"sparse_terms": {"query_text": "tumour cells"}}}]}
        },
    }
    hits = client.search(
        index=doc_only.models.doc_only_idf_index, params={"search_pipeline": "hybrid-rrf"}, body=body
    )["hits"]["hits"]
    assert hits
