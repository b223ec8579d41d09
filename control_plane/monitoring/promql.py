"""The metric names a PromQL expression reads, so a test can check each is exported by a running service.

Not a PromQL parser: a lexer-level pass that drops string literals, label matchers ``{...}``, durations
``[...]`` and keywords/functions, and keeps the identifiers left. Names of histogram and counter series
(``_bucket``, ``_count``, ``_sum``, ``_total``) map back to the family a /metrics scrape declares.
"""

from __future__ import annotations

import re
from typing import Final

_STRINGS: Final = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_MATCHERS: Final = re.compile(r"\{[^{}]*\}")
_RANGES: Final = re.compile(r"\[[^\[\]]*\]")
_GROUPING: Final = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
_IDENTIFIER: Final = re.compile(r"(?<![\w.])([a-zA-Z_:][a-zA-Z0-9_:]*)(?![\w(])(?!\s*\()")
_KEYWORDS: Final = frozenset(
    {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset"}
)
_SERIES_SUFFIXES: Final = ("_bucket", "_count", "_sum", "_total", "_created")


def metric_names(expr: str) -> frozenset[str]:
    """The series names ``expr`` selects (as written: ``x_bucket``, ``y_total``)."""
    text = _STRINGS.sub('""', expr)
    text = _MATCHERS.sub(" ", text)
    text = _RANGES.sub(" ", text)
    text = _GROUPING.sub(" ", text)
    return frozenset(name for name in _IDENTIFIER.findall(text) if name not in _KEYWORDS)


def family_name(series: str) -> str:
    """The metric family a series name belongs to (``a_seconds_bucket`` -> ``a_seconds``)."""
    for suffix in _SERIES_SUFFIXES:
        if series.endswith(suffix):
            return series[: -len(suffix)]
    return series
