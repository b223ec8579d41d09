"""Each RAG library's own retriever, in the mode that reaches a clinical pipeline (docs/clients/), as a
ranker of chunk ids. Imported only when the benchmark runs (the ``clients`` extra)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

Ranker = Callable[[str], list[str]]
DIM: Final = 384
K: Final = 10


def llamaindex_hybrid(url: str, index: str, pipeline: str) -> Ranker:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.vector_stores.opensearch import OpensearchVectorClient, OpensearchVectorStore

    client = OpensearchVectorClient(
        url,
        index,
        DIM,
        embedding_field="embedding",
        text_field="text",
        search_pipeline=pipeline,
        excluded_source_fields=["embedding", "sparse_terms"],
    )
    store = VectorStoreIndex.from_vector_store(
        OpensearchVectorStore(client), embed_model=MockEmbedding(embed_dim=DIM)
    )
    retriever = store.as_retriever(vector_store_query_mode="hybrid", similarity_top_k=K)
    return lambda text: [hit.node.node_id for hit in retriever.retrieve(text)]


def langchain_hybrid(url: str, index: str, pipeline: str) -> Ranker:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # langchain-community's sunset notice
        from langchain_community.vectorstores import OpenSearchVectorSearch
    from langchain_core.embeddings import DeterministicFakeEmbedding

    store = OpenSearchVectorSearch(
        opensearch_url=url, index_name=index, embedding_function=DeterministicFakeEmbedding(size=DIM)
    )

    def rank(text: str) -> list[str]:
        docs = store.similarity_search(
            text, k=K, search_type="hybrid_search", search_pipeline=pipeline, text_field="text"
        )
        return [str(doc.id) for doc in docs]

    return rank


def haystack_bm25(url: str, index: str, pipeline: str) -> Ranker:
    from haystack_integrations.components.retrievers.opensearch import OpenSearchBM25Retriever
    from haystack_integrations.document_stores.opensearch import OpenSearchDocumentStore

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        store = OpenSearchDocumentStore(hosts=[url], index=index, embedding_dim=DIM)
    query: dict[str, Any] = {
        "search_pipeline": f"{pipeline}-haystack",
        "query": {"match": {"text": "$query"}},
    }
    retriever = OpenSearchBM25Retriever(document_store=store, top_k=K, custom_query=query)
    return lambda text: [str(doc.id) for doc in retriever.run(query=text)["documents"]]


LIBRARIES: Final[dict[str, Callable[[str, str, str], Ranker]]] = {
    "LlamaIndex hybrid retriever": llamaindex_hybrid,
    "LangChain hybrid_search": langchain_hybrid,
    "Haystack BM25Retriever, custom_query": haystack_bm25,
}
