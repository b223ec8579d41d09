"""Whitespace and markup clean-up shared by the parsers, so every source yields the same paragraph shape."""

from __future__ import annotations

import re

_WHITESPACE = re.compile(r"\s+")
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")
# A line that starts a list item ("- x", "* x", "• x", "1. x", "a) x") begins a new paragraph even
# without a blank line before it: ClinicalTrials.gov JSON puts one criterion per line.
_LIST_ITEM = re.compile(r"^\s*(?:[-*•·]\s+|\d{1,3}[.)]\s+|[a-zA-Z][.)]\s+)")
# ClinicalTrials.gov API v2 text is markdown with escaped punctuation ("\\[", "\\<", "\\>").
_MARKDOWN_ESCAPE = re.compile(r"\\([\\\[\]<>*_~`#()|!-])")


def collapse_whitespace(text: str) -> str:
    """One line, single spaces, no leading/trailing space."""
    return _WHITESPACE.sub(" ", text).strip()


def unescape_markdown(text: str) -> str:
    """Drop markdown backslash escapes (``\\<`` -> ``<``) from registry text."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


def split_paragraphs(text: str, *, lines_are_paragraphs: bool = False) -> list[str]:
    """Split a text block into whitespace-collapsed paragraphs.

    Blank lines always separate paragraphs. With ``lines_are_paragraphs`` (registry JSON, which never
    wraps) every line is one; otherwise (legacy XML, wrapped at ~80 columns and indented) a list-item
    line starts a paragraph and other lines are continuations joined with a space.
    """
    paragraphs: list[str] = []
    for block in _BLANK_LINE.split(text.replace("\r\n", "\n")):
        current: list[str] = []
        for line in block.split("\n"):
            if current and (lines_are_paragraphs or _LIST_ITEM.match(line)):
                paragraphs.append(collapse_whitespace(" ".join(current)))
                current = []
            if line.strip():
                current.append(line)
        if current:
            paragraphs.append(collapse_whitespace(" ".join(current)))
    return [paragraph for paragraph in paragraphs if paragraph]
