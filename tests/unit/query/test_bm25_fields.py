"""BM25 searches the record identifiers, and one mapping names the BM25 fields (issue 15, item 4.1)."""

from __future__ import annotations

import json

from control_plane.locations import RESOURCES_DIR
from control_plane.query.components import BM25_FIELD_BOOSTS, bm25_clause, text_hybrid_query

MAPPING = RESOURCES_DIR / "index_templates" / "component" / "chunk-mappings.json"


def test_bm25_clause_searches_identifiers() -> None:
    clause = bm25_clause("NCT00023673")["multi_match"]
    assert clause["query"] == "NCT00023673"
    assert "identifiers^1" in clause["fields"]
    assert clause["fields"] == [f"{name}^{boost:g}" for name, boost in BM25_FIELD_BOOSTS.items()]
    (bm25, *_) = text_hybrid_query("PMC3166277")["hybrid"]["queries"]
    assert bm25 == bm25_clause("PMC3166277")


def test_every_bm25_field_is_an_analysed_bm25_field_of_the_mapping() -> None:
    template = json.loads(MAPPING.read_text(encoding="utf-8"))["template"]
    properties = template["mappings"]["properties"]
    analyzers = template["settings"]["index"]["analysis"]["analyzer"]
    for name in BM25_FIELD_BOOSTS:
        field = properties[name]
        assert field["type"] == "text" and field["similarity"] == "chunk_bm25", name
        assert field["analyzer"] in analyzers, name
    identifier = analyzers["biomedical_identifier"]
    # exact terms: no stemming, no stop words ("PROMISE" stays "promise", "HE4 in ..." keeps "in")
    assert identifier == {"type": "custom", "tokenizer": "standard", "filter": ["lowercase", "asciifolding"]}
