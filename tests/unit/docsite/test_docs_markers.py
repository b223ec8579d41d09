import pytest

from control_plane.docsite.markers import UnknownGeneratorError, expand_markers


def test_a_marker_line_is_replaced_by_its_generator() -> None:
    page = "# Reference\n\n<!-- generated: settings -->\n\nAfter.\n"
    expanded = expand_markers(page, {"settings": lambda: "| a | b |\n"}, "ref.md")
    assert expanded == "# Reference\n\n| a | b |\n\nAfter.\n"


def test_a_marker_inside_a_line_is_left_alone() -> None:
    page = "text <!-- generated: settings --> text\n"
    assert expand_markers(page, {"settings": lambda: "X"}, "p.md") == page


def test_an_unknown_generator_names_the_page_and_the_known_ones() -> None:
    with pytest.raises(
        UnknownGeneratorError, match=r"ref\.md: no generator 'setings' \(known: cli, settings\)"
    ):
        expand_markers("<!-- generated: setings -->\n", {"settings": str, "cli": str}, "ref.md")
