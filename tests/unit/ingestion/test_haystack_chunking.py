"""The haystack-* chunking strategies: Haystack's DocumentSplitter per section, mapped back to exact
offsets, with Haystack's provenance; checked on hand-made text and on the real PMC articles."""

from __future__ import annotations

import pytest

from control_plane.ingestion.chunking import chunk
from control_plane.ingestion.documents import Document, Section
from control_plane.ingestion.haystack_splitter import HAYSTACK_STRATEGIES, split_settings, splits
from control_plane.ingestion.tokens import HuggingFaceTokenCounter

TEXT = "Title\nAspirin reduces pain. It is cheap. It is old. Side effects are rare.\n\nA second passage here."


def _document() -> Document:
    first = Section(label="Body", kind="other", title_path=("Body",), start=6, end=len(TEXT))
    return Document(
        doc_id="d1",
        title="Title",
        source="pmc",
        doc_type="article",
        url=None,
        publication_date=None,
        sections=(first,),
        tables=(),
        text=TEXT,
    )


def test_split_settings_per_unit() -> None:
    assert split_settings("word", 254, 20) == (169, 34)  # 254 / 1.5 words, 20 % of them shared
    assert split_settings("word", 3, 50) == (2, 1)
    assert split_settings("period", 254, 20) == (3, 0)
    assert split_settings("passage", 254, 20) == (1, 0)


def test_haystack_splits_carry_their_offsets() -> None:
    text = "one two three four five"
    assert splits(text, "word", 2, 0) == [(0, "one two "), (8, "three four "), (19, "five")]


def test_sentence_chunks_are_three_periods_with_exact_offsets(token_counter: HuggingFaceTokenCounter) -> None:
    chunks = chunk(_document(), "haystack-sentence", counter=token_counter)
    assert [c.text for c in chunks] == [
        "Aspirin reduces pain. It is cheap. It is old.",
        "Side effects are rare.\n\nA second passage here.",
    ]
    assert all(TEXT[c.start : c.end] == c.text for c in chunks)
    assert chunks[0].provenance["chunker"] == "haystack.DocumentSplitter"
    assert chunks[0].provenance["split_by"] == "period"


def test_passage_chunks_follow_blank_lines(token_counter: HuggingFaceTokenCounter) -> None:
    chunks = chunk(_document(), "haystack-passage", counter=token_counter)
    assert [c.text for c in chunks] == [
        "Aspirin reduces pain. It is cheap. It is old. Side effects are rare.",
        "A second passage here.",
    ]


@pytest.mark.parametrize("strategy", sorted(HAYSTACK_STRATEGIES))
def test_every_pmc_chunk_is_its_span_within_budget_and_tables_stay_whole(
    strategy: str, pmc_documents: list[Document], token_counter: HuggingFaceTokenCounter
) -> None:
    for document in pmc_documents:
        chunks = chunk(document, strategy, token_budget=96, counter=token_counter)
        for item in chunks:
            assert document.text[item.start : item.end] == item.text and item.text == item.text.strip()
            assert item.provenance["strategy"] == strategy
            if not item.is_table:
                assert item.token_count <= 96, (document.doc_id, item.chunk_id)
        assert [c.table_lines for c in chunks if c.is_table] == [t.row_lines for t in document.tables]
