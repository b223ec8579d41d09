from __future__ import annotations

import pytest

from control_plane.reports.markdown import markdown_table


def test_a_table_by_hand() -> None:
    assert markdown_table(["a", "b"], [["1", "2"], ["x", "y"]]) == [
        "| a | b |",
        "|---|---|",
        "| 1 | 2 |",
        "| x | y |",
    ]


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match=r"row 2 has 1 cells for 2 columns"):
        markdown_table(["a", "b"], [["1", "2"], ["x"]])


def test_columns_align_right_where_asked() -> None:
    assert markdown_table(["name", "ms"], [["bm25", "12.0"]], align="lr") == [
        "| name | ms |",
        "|---|---:|",
        "| bm25 | 12.0 |",
    ]
    with pytest.raises(ValueError, match="one 'l' or 'r' per column"):
        markdown_table(["name", "ms"], [], align="l")
