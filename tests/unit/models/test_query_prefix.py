"""The query instruction goes on queries only, and only for models that declare one."""

from control_plane.models.dense import with_query_prefix

BGE_PREFIX = "Represent this sentence for searching relevant passages: "


def test_queries_get_the_prefix_verbatim() -> None:
    assert with_query_prefix(["statins", "aspirin"], BGE_PREFIX) == [
        "Represent this sentence for searching relevant passages: statins",
        "Represent this sentence for searching relevant passages: aspirin",
    ]


def test_no_prefix_leaves_the_texts_unchanged() -> None:
    assert with_query_prefix(["statins"], "") == ["statins"]
