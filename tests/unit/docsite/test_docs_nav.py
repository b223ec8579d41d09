import pytest

from control_plane.docsite.nav import nav_pages


def test_nav_pages_flattens_titled_pages_and_sections_in_order() -> None:
    nav = [
        {"Home": "index.md"},
        "getting-started.md",
        {"Clients": ["clients/index.md", {"curl": "clients/curl.md"}, {"Deeper": [{"x": "clients/x.md"}]}]},
    ]
    assert nav_pages(nav) == [
        "index.md",
        "getting-started.md",
        "clients/index.md",
        "clients/curl.md",
        "clients/x.md",
    ]


def test_a_malformed_entry_is_an_error() -> None:
    with pytest.raises(ValueError, match="not 3"):
        nav_pages([3])
