"""The three most used Python RAG libraries, at the versions the `clients` extra pins, reach the
clinical routing with nothing of this project on the client but a pipeline name (docs/clients/): each
library's own retriever, in the mode that sends the question, gets routed adverse-event chunks in its top
5 for "side effects of the treatment", with its own document objects filled (text, id, metadata), and
its own filter form honoured. A library's vector-only mode sends no question (refused by the clinical
pipelines: test_clinical_pipelines.py), and LlamaIndex's text mode sends no pipeline at all: the docs say
so."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import pytest
from integration.api.stack import ApiStack

pytestmark = pytest.mark.integration
QUESTION = "side effects of the treatment"
TOP = 5
DIM = 384  # the index's vectors; a client's own query vector is replaced by the product's


def _assert_routed_adverse_events(notes: Sequence[str], sections: Sequence[Any]) -> None:
    """Every hit was routed for the adverse-events intent, and the top 5 holds a lifted adverse-event
    chunk (the routing's work, not BM25's alone)."""
    assert len(notes) == TOP, notes
    assert all(note.startswith("intents=adverse_events") for note in notes), notes
    lifted = [section for note, section in zip(notes, sections, strict=True) if "lifted x" in note]
    assert "adverse_events" in lifted, list(zip(notes, sections, strict=True))


def _llamaindex(stack: ApiStack, node: str, pipeline: str) -> Any:
    """A LlamaIndex index over the stack's chunks, its vector store naming ``pipeline`` (the one setting);
    any embed model will do: the pipeline replaces the client's vector."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.vector_stores.opensearch import OpensearchVectorClient, OpensearchVectorStore

    vector_client = OpensearchVectorClient(
        node,
        f"{stack.prefix}-a",
        DIM,
        embedding_field="embedding",
        text_field="text",
        search_pipeline=pipeline,
        excluded_source_fields=["embedding", "sparse_terms"],
    )
    return VectorStoreIndex.from_vector_store(
        OpensearchVectorStore(vector_client), embed_model=MockEmbedding(embed_dim=DIM)
    )


def test_llamaindex_hybrid_mode_is_routed_and_fills_its_nodes(stack: ApiStack, node: str) -> None:
    index = _llamaindex(stack, node, "clinical-minmax")
    found = index.as_retriever(vector_store_query_mode="hybrid", similarity_top_k=TOP).retrieve(QUESTION)
    assert all(hit.node.text and hit.node.node_id == hit.node.metadata["chunk_id"] for hit in found)
    _assert_routed_adverse_events(
        [hit.node.metadata["clinical_route"] for hit in found],
        [hit.node.metadata.get("section") for hit in found],
    )


def test_llamaindex_metadata_filters_reach_the_chunk_fields(stack: ApiStack, node: str) -> None:
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

    only_pmc = MetadataFilters(filters=[MetadataFilter(key="source", value="pmc")])
    found = (
        _llamaindex(stack, node, "clinical-rrf")
        .as_retriever(vector_store_query_mode="hybrid", similarity_top_k=TOP, filters=only_pmc)
        .retrieve(QUESTION)
    )
    assert found and {hit.node.metadata["source"] for hit in found} == {"pmc"}


def test_langchain_hybrid_search_is_routed_and_fills_its_documents(stack: ApiStack, node: str) -> None:
    from langchain_community.vectorstores import OpenSearchVectorSearch
    from langchain_core.embeddings import DeterministicFakeEmbedding

    store = OpenSearchVectorSearch(
        opensearch_url=node,
        index_name=f"{stack.prefix}-a",
        embedding_function=DeterministicFakeEmbedding(size=DIM),
    )
    docs = store.similarity_search(
        QUESTION,
        k=TOP,
        search_type="hybrid_search",
        search_pipeline="clinical-minmax",
        vector_field="embedding",
        text_field="text",
    )
    assert all(doc.page_content and doc.id == doc.metadata["chunk_id"] for doc in docs)
    _assert_routed_adverse_events(
        [doc.metadata["clinical_route"] for doc in docs], [doc.metadata.get("section") for doc in docs]
    )


def _haystack_retriever(stack: ApiStack, node: str, custom_query: dict[str, Any]) -> Any:
    from haystack_integrations.components.retrievers.opensearch import OpenSearchBM25Retriever
    from haystack_integrations.document_stores.opensearch import OpenSearchDocumentStore

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store = OpenSearchDocumentStore(hosts=[node], index=f"{stack.prefix}-a", embedding_dim=DIM)
    return OpenSearchBM25Retriever(document_store=store, top_k=TOP, custom_query=custom_query)


def test_haystack_bm25_retriever_is_routed_and_fills_its_documents(stack: ApiStack, node: str) -> None:
    retriever = _haystack_retriever(
        stack, node, {"search_pipeline": "clinical-minmax-haystack", "query": {"match": {"text": "$query"}}}
    )
    docs = retriever.run(query=QUESTION)["documents"]
    assert all(doc.content and doc.id.startswith(doc.meta["doc_id"]) for doc in docs)
    assert all("text" not in doc.meta and "chunk_id" not in doc.meta for doc in docs)
    _assert_routed_adverse_events(
        [doc.meta["clinical_route"] for doc in docs], [doc.meta.get("section") for doc in docs]
    )


def test_haystack_filters_reach_every_sub_query(stack: ApiStack, node: str) -> None:
    retriever = _haystack_retriever(
        stack,
        node,
        {
            "search_pipeline": "clinical-rrf-haystack",
            "query": {"bool": {"must": [{"match": {"text": "$query"}}], "filter": "$filters"}},
        },
    )
    docs = retriever.run(query=QUESTION, filters={"field": "source", "operator": "==", "value": "pmc"})[
        "documents"
    ]
    assert docs and {doc.meta["source"] for doc in docs} == {"pmc"}
    assert all(doc.meta["clinical_route"].startswith("intents=adverse_events") for doc in docs)
