import pytest

from control_plane.resources.render import RenderError, flatten, render


def test_whole_placeholder_keeps_the_parameter_type() -> None:
    out = render({"d": "{{ dim }}", "w": "{{w}}", "keep": 3}, {"dim": 384, "w": [0.3, 0.7]})
    assert out == {"d": 384, "w": [0.3, 0.7], "keep": 3}


def test_placeholder_inside_text_is_interpolated() -> None:
    assert render(["{{ p }}-*"], {"p": "chunks"}) == ["chunks-*"]


def test_unknown_placeholder_names_itself_and_the_source() -> None:
    with pytest.raises(RenderError, match=r"x\.json: unknown placeholder '\{\{ nope \}\}'"):
        render({"a": "{{ nope }}"}, {"yes": 1}, source="x.json")


def test_template_is_not_mutated() -> None:
    template = {"a": ["{{ v }}"]}
    render(template, {"v": 1})
    assert template == {"a": ["{{ v }}"]}


def test_flatten_uses_dotted_keys() -> None:
    assert flatten({"a": {"b": 1, "c": {"d": "x"}}, "e": [1]}) == {"a.b": 1, "a.c.d": "x", "e": [1]}


def test_merge_key_adds_the_keys_of_a_mapping_or_nothing() -> None:
    template = {"index": {"<<": "{{ extra }}", "knn": True}}
    assert render(template, {"extra": {"sparse": True}}) == {"index": {"knn": True, "sparse": True}}
    assert render(template, {"extra": {}}) == {"index": {"knn": True}}


def test_merge_key_must_be_a_mapping_and_must_not_overwrite() -> None:
    with pytest.raises(RenderError, match="mapping"):
        render({"<<": "{{ extra }}"}, {"extra": [1]})
    with pytest.raises(RenderError, match="overwrite knn"):
        render({"<<": "{{ extra }}", "knn": True}, {"extra": {"knn": False}})
