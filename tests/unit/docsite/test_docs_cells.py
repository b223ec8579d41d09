from control_plane.docsite.cells import cell, code, json_value


def test_cell_is_one_line_with_prose_escaped_and_code_spans_kept() -> None:
    text = "reads <prefix>-* and\n  a|b, `x|<y>*` stays"
    assert cell(text) == "reads &lt;prefix&gt;-\\* and a\\|b, `x|<y>*` stays"


def test_code_uses_more_backticks_than_the_text_holds() -> None:
    assert code("plain") == "`plain`"
    assert code("a`b") == "``a`b``"
    assert code("`x`") == "`` `x` ``"


def test_json_value_is_compact_json() -> None:
    assert json_value({"a": [1, None, True]}) == '{"a": [1, null, true]}'
    assert json_value("é") == '"é"'
