"""Log lines: the text form carries the same fields as the JSON form (hand-made records)."""

from __future__ import annotations

import json
import logging

from control_plane.logs import JsonFormatter, TextFormatter, text_value


def _record(**fields: object) -> logging.LogRecord:
    record = logging.makeLogRecord({"name": "ingest", "levelname": "INFO", "levelno": 20})
    record.msg = "duplicate record: one form kept"
    record.__dict__.update(fields)
    return record


def test_a_text_line_says_the_fields_a_json_line_carries() -> None:
    record = _record(doc_id="NCT01", why="a more complete form is kept", kept_form={"tables": 3})
    line = TextFormatter().format(record)
    assert line == (
        'INFO duplicate record: one form kept doc_id=NCT01 why="a more complete form is kept" '
        'kept_form={"tables":3}'
    )
    entry = json.loads(JsonFormatter().format(record))
    assert (entry["doc_id"], entry["why"], entry["kept_form"]) == (
        "NCT01",
        "a more complete form is kept",
        {"tables": 3},
    )


def test_a_line_without_fields_is_the_level_and_the_message() -> None:
    assert TextFormatter().format(_record()) == "INFO duplicate record: one form kept"


def test_values_are_bare_only_when_they_read_as_one_token() -> None:
    assert text_value("chunks-demo") == "chunks-demo"
    assert text_value("") == '""'
    assert text_value("a=b") == '"a=b"'
    assert text_value('say "hi"') == '"say \\"hi\\""'
    assert text_value(3) == "3" and text_value(None) == "null" and text_value([1, "a b"]) == '[1,"a b"]'
