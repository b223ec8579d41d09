"""A body the API cannot use is a 400 naming what is wrong with it, worked out without recursion and in time
linear in the body: invalid UTF-8, nesting past MAX_DEPTH (100,000 deep is a 500 from Python's parser),
NaN and Infinity, lone surrogates."""

from __future__ import annotations

import time

import pytest

from control_plane.errors import BadRequestError
from control_plane.json_bodies import MAX_DEPTH, decode_json, nesting_depth


def test_a_good_body_parses() -> None:
    assert decode_json(b'{"query": "caf\\u00e9 [not a bracket]", "size": 3}') == {
        "query": "café [not a bracket]",
        "size": 3,
    }


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("{}", 1),
        ('{"a": [1, [2]]}', 3),
        ('{"a": "[[[[{{{{"}', 1),
        ('["\\"]]]"]', 1),
        ("3", 0),
        ('["unclosed [[[', 1),  # an unclosed string runs to the end of the body
        ('["ends in a backslash \\', 1),
        ('[["a\\"[', 2),
    ],
)
def test_nesting_is_counted_outside_strings(text: str, depth: int) -> None:
    assert nesting_depth(text) == depth


def test_invalid_utf8_names_the_byte_and_its_offset() -> None:
    with pytest.raises(BadRequestError, match="not valid UTF-8: byte 0xff at offset 11"):
        decode_json(b'{"query":"x\xff"}')


def test_counting_stops_once_past_the_limit() -> None:
    assert nesting_depth("[" * 100 + "]" * 100, stop_past=5) == 6
    assert nesting_depth("[" * 5 + "]" * 5, stop_past=5) == 5


def test_an_unclosed_string_of_escaped_quotes_is_read_in_linear_time() -> None:
    # Issue 73: the earlier pattern retried from every quote of an unclosed string, so its time grew with
    # the square of the length (12 KB: a second; 100 KB: about a minute). Here 2 MB is one pass: the bound
    # is three orders of magnitude above a linear read on a slow machine and below a quadratic one's.
    body = ('{"query": "' + '\\"' * 1_000_000).encode()
    started = time.perf_counter()
    with pytest.raises(BadRequestError, match="not valid JSON"):
        decode_json(body)
    assert time.perf_counter() - started < 5.0


def test_deep_nesting_is_refused_before_parsing() -> None:
    with pytest.raises(BadRequestError, match=f"more than {MAX_DEPTH} deep; at most {MAX_DEPTH}"):
        decode_json(b"[" * 100_000 + b"]" * 100_000)
    decode_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)  # the limit itself is accepted


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_not_json(constant: str) -> None:
    with pytest.raises(BadRequestError, match=f"holds {constant}, which is not a JSON number"):
        decode_json(f'{{"weights": {{"bm25": {constant}}}}}'.encode())


@pytest.mark.parametrize(
    "body",
    [
        b'{"query": "\\ud800"}',
        b'{"\\udfff": 1}',
        b'[["x\\udc00y"]]',
        b'{"q": "\\uDBFF"}',
        b'{"q": "\\uDa00"}',
    ],
)
def test_lone_surrogates_are_refused(body: bytes) -> None:
    with pytest.raises(BadRequestError, match="lone surrogate"):
        decode_json(body)


def test_a_surrogate_pair_is_text() -> None:
    assert decode_json(b'{"query": "\\ud83d\\ude00"}') == {"query": "\U0001f600"}


def test_broken_json_says_where() -> None:
    with pytest.raises(BadRequestError, match="not valid JSON: Expecting"):
        decode_json(b'{"query": ')
