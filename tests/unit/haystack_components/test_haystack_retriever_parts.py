"""The retriever's pure parts: the Document it builds from
a result, its validation and its serialised form (no secret in it)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from control_plane.haystack_components.documents import to_document
from control_plane.haystack_components.ranker import BiohybridRanker
from control_plane.haystack_components.retriever import BiohybridRetriever
from control_plane.search.results import ChunkResult, ComponentScores, Layout, LayoutBox


def test_a_result_becomes_a_document_with_offsets_and_component_scores() -> None:
    result = ChunkResult(
        chunk_id="d:chunk:2",
        doc_id="d",
        text="abc",
        score=0.5,
        start=10,
        end=13,
        source="pmc",
        component_scores=ComponentScores(bm25=1.5, dense=0.7),
    )
    document = to_document(result)
    assert (document.id, document.content, document.score) == ("d:chunk:2", "abc", 0.5)
    assert document.meta["start"] == 10 and document.meta["end"] == 13 and document.meta["source"] == "pmc"
    assert document.meta["component_scores"] == {"bm25": 1.5, "dense": 0.7}
    assert "layout" not in document.meta


def test_a_pdf_result_keeps_its_layout_in_meta() -> None:
    box = LayoutBox(page=3, x0=50.0, top=100.0, x1=280.0, bottom=110.0)
    result = ChunkResult(
        chunk_id="p:chunk:0", doc_id="p", text="abc", score=0.5, layout=Layout(pages=[3], boxes=[box])
    )
    assert to_document(result).meta["layout"] == {"pages": [3], "boxes": [box.model_dump()]}


def test_bad_settings_fail_when_the_component_is_built() -> None:
    with pytest.raises(ValueError, match="mode must be"):
        BiohybridRetriever(mode="grpc")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        BiohybridRetriever(opensearch={"uri": "http://x"})
    with pytest.raises(ValueError, match="model_weight"):
        BiohybridRanker(model_weight=1.5)


def test_serialised_components_round_trip() -> None:
    retriever = BiohybridRetriever(
        opensearch={"url": "http://127.0.0.1:9211"}, index="chunks-acme", tenant_id="acme"
    )
    data = retriever.to_dict()
    assert data["type"] == "control_plane.haystack_components.retriever.BiohybridRetriever"
    assert BiohybridRetriever.from_dict(data).to_dict() == data
    ranker = BiohybridRanker(depth=10, model_weight=0.5)
    assert BiohybridRanker.from_dict(ranker.to_dict()).to_dict() == ranker.to_dict()
