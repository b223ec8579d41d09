"""The Haystack components inside real Haystack Pipelines against the real stack: the retriever through
the OpenSearch search pipelines (ml-commons encoding the text) and through /v1/search over HTTP, the
ranker with the real cross-encoder, OData options, tenant bounds, and a pipeline that survives its own
serialisation."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from haystack import Document, Pipeline
from integration.api.stack import ApiStack, secret
from integration.service import free_port
from werkzeug.serving import make_server

from control_plane.haystack_components.ranker import BiohybridRanker
from control_plane.haystack_components.retriever import BiohybridRetriever

pytestmark = pytest.mark.integration
QUERY = "adverse events of the study drug"


def direct(stack: ApiStack, tenant: str, **options: object) -> BiohybridRetriever:
    return BiohybridRetriever(
        opensearch={"url": stack.settings.opensearch.url},
        index=f"{stack.prefix}-*",
        tenant_id=tenant,
        top_k=10,
        **options,  # type: ignore[arg-type]
    )


def retrieve_and_rank(retriever: BiohybridRetriever, **inputs: object) -> dict[str, list[Document]]:
    pipeline = Pipeline()
    pipeline.add_component("retriever", retriever)
    pipeline.add_component("ranker", BiohybridRanker(top_k=5))
    pipeline.connect("retriever.documents", "ranker.documents")
    answer = pipeline.run(
        {"retriever": {"query": QUERY, **inputs}, "ranker": {"query": QUERY}},
        include_outputs_from={"retriever"},
    )
    return {"retrieved": answer["retriever"]["documents"], "ranked": answer["ranker"]["documents"]}


def test_a_pipeline_retrieves_from_the_search_pipeline_and_reranks(stack: ApiStack) -> None:
    out = retrieve_and_rank(direct(stack, "tenant-a"))
    retrieved, ranked = out["retrieved"], out["ranked"]
    assert len(retrieved) == 10 and len(ranked) == 5
    assert {d.meta["doc_id"] for d in retrieved} <= stack.tenant_docs["tenant-a"]
    for document in retrieved:
        assert document.meta["end"] - document.meta["start"] == len(document.content or "")
        assert set(document.meta["component_scores"]) <= {"bm25", "splade", "dense"}
        assert document.meta["component_scores"]
    assert {d.id for d in ranked} <= {d.id for d in retrieved}
    assert all("reranker_score" in d.meta for d in ranked)
    assert [d.score for d in ranked] == sorted((d.score for d in ranked), reverse=True)


def test_odata_options_narrow_and_never_widen_the_tenant(stack: ApiStack) -> None:
    pmc = direct(stack, "tenant-a").run(QUERY, odata_filter="source eq 'pmc'")["documents"]
    assert pmc and {d.meta["source"] for d in pmc} == {"pmc"}
    everything = "source eq 'pmc' or not source eq 'pmc'"
    seen = direct(stack, "tenant-b").run(QUERY, top_k=50, odata_filter=everything)["documents"]
    assert seen and {d.meta["doc_id"] for d in seen} <= stack.tenant_docs["tenant-b"]
    whole = direct(stack, "tenant-a").run(QUERY, top_k=6)["documents"]
    pages = [direct(stack, "tenant-a").run(QUERY, top_k=3, skip=skip)["documents"] for skip in (0, 3)]
    assert [d.id for d in pages[0] + pages[1]] == [d.id for d in whole]


@pytest.fixture
def api_url(stack: ApiStack, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The stack's control API served over HTTP on loopback, its tenant-a search key in the env."""
    server = make_server("127.0.0.1", free_port(), stack.app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("TEST_BIOHYBRID_KEY", secret("a-search"))
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()


def test_the_api_mode_pipeline_and_its_serialised_copy(stack: ApiStack, api_url: str) -> None:
    retriever = BiohybridRetriever(mode="api", api_url=api_url, api_key_env="TEST_BIOHYBRID_KEY", top_k=8)
    out = retrieve_and_rank(retriever, odata_filter="not source eq 'pmc'", odata_orderby="score desc")
    assert out["retrieved"] and {d.meta["source"] for d in out["retrieved"]} <= {"ctgov"}
    assert {d.meta["doc_id"] for d in out["retrieved"]} <= stack.tenant_docs["tenant-a"]
    pipeline = Pipeline()
    pipeline.add_component("retriever", BiohybridRetriever.from_dict(retriever.to_dict()))
    copy = Pipeline.loads(pipeline.dumps())
    again = copy.run({"retriever": {"query": QUERY, "odata_filter": "not source eq 'pmc'"}})
    assert [d.id for d in again["retriever"]["documents"]] == [d.id for d in out["retrieved"]]
    assert "TEST_BIOHYBRID_KEY" in pipeline.dumps() and secret("a-search") not in pipeline.dumps()
