import pytest

from control_plane.words.visible import has_visible_character


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \t\n",
        "\u200b\u200b",  # zero-width spaces
        "\ufeff",  # byte-order mark
        "\u200c\u200d\u2060",  # joiners
        "\u202e\u200f",  # bidi controls
        "\u00a0\u3000",  # no-break and ideographic spaces
        "\u3164\u115f",  # Hangul fillers
        "\u2800",  # blank Braille
        "\u0301\u0308",  # combining marks alone
        "\x00\x07",
    ],
)
def test_text_that_shows_nothing_has_no_visible_character(text: str) -> None:
    assert not has_visible_character(text)


@pytest.mark.parametrize(
    "text", ["aspirin", "\u200bx", "e\u0301", "5", "?", "阿司匹林", "β-blocker", "\u2800a"]
)
def test_text_with_one_character_that_shows_has_one(text: str) -> None:
    assert has_visible_character(text)
