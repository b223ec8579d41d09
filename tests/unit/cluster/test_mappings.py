"""Which fields an existing index lacks, and the PUT _mapping body that adds only those."""

from __future__ import annotations

from control_plane.cluster.mappings import MappingAction, MappingUpdate, field_paths, missing_fields

EXPECTED = {
    "text": {"type": "text", "fields": {"exact": {"type": "keyword"}, "stem": {"type": "text"}}},
    "layout": {"type": "object", "enabled": False},
    "provenance": {"properties": {"parser": {"type": "keyword"}, "page": {"type": "integer"}}},
    "doc_id": {"type": "keyword"},
}


def test_nothing_is_missing_from_an_index_made_from_the_same_mapping() -> None:
    assert missing_fields(EXPECTED, EXPECTED) == {}


def test_a_missing_field_whole_an_objects_missing_leaf_alone_and_a_multi_field_with_its_parent() -> None:
    actual = {
        "text": {"type": "text", "fields": {"exact": {"type": "keyword"}}},
        "provenance": {"properties": {"parser": {"type": "keyword"}}},
        "doc_id": {"type": "keyword"},
    }
    missing = missing_fields(EXPECTED, actual)
    assert missing == {
        "text": EXPECTED["text"],  # restated whole: a new multi-field needs its parent's type
        "layout": {"type": "object", "enabled": False},
        "provenance": {"properties": {"page": {"type": "integer"}}},
    }
    assert field_paths(missing) == ["text", "layout", "provenance.page"]


def test_a_field_of_another_type_is_not_missing() -> None:
    # Changing a type needs a re-index: the upgrade adds fields, it never rewrites one.
    assert missing_fields({"doc_id": {"type": "keyword"}}, {"doc_id": {"type": "text"}}) == {}


def test_the_action_says_what_happened() -> None:
    assert MappingUpdate("chunks-a", ()).action is MappingAction.UNCHANGED
    assert MappingUpdate("chunks-a", ("layout",)).action is MappingAction.UPDATED
    assert MappingUpdate("chunks-a", ("layout",), "no analyzer").action is MappingAction.REFUSED
