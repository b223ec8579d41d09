"""Small ElementTree helpers shared by the XML parsers: text extraction, HTML rendering, format sniffing."""

from __future__ import annotations

import gzip
import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html import escape
from pathlib import Path

from control_plane.ingestion.textnorm import collapse_whitespace

# JATS inline markup that has an obvious HTML equivalent; other non-namespaced tags keep their name.
_HTML_TAGS = {"italic": "i", "bold": "b", "underline": "u", "sc": "span", "xref": "span", "ext-link": "a"}
_FIRST_ELEMENT = re.compile(rb"<([A-Za-z_][\w.-]*(?::[\w.-]+)?)[\s/>]")


def local_name(tag: str) -> str:
    """``{namespace}name`` -> ``name``."""
    return tag.rsplit("}", 1)[-1]


def element_text(element: ET.Element | None, skip: frozenset[str] = frozenset()) -> str:
    """Whitespace-collapsed text of ``element``, leaving out subtrees whose local name is in ``skip``.

    Tails of skipped elements are kept: they belong to the surrounding sentence.
    """
    if element is None:
        return ""
    return collapse_whitespace("".join(_iter_text(element, skip)))


def _iter_text(element: ET.Element, skip: frozenset[str]) -> Iterator[str]:
    if element.text:
        yield element.text
    for child in element:
        if local_name(child.tag) not in skip:
            yield from _iter_text(child, skip)
        if child.tail:
            yield child.tail


def error_location(error: ET.ParseError) -> str:
    """``"line 12, column 5"`` for an expat error, columns counted from 1 like editors (and ``json``) do."""
    line, column = error.position
    return f"line {line}, column {column + 1}"


def to_html(element: ET.Element) -> str:
    """Render an XHTML-like subtree (a JATS ``<table>``) as HTML without namespace noise or the tail."""
    parts: list[str] = []
    _render(element, parts)
    return "".join(parts)


def _render(element: ET.Element, parts: list[str]) -> None:
    namespaced = element.tag.startswith("{")
    tag = _HTML_TAGS.get(element.tag, element.tag)
    if not namespaced:
        attributes = "".join(
            f' {name}="{escape(value)}"' for name, value in element.attrib.items() if not name.startswith("{")
        )
        parts.append(f"<{tag}{attributes}>")
    if element.text:
        parts.append(escape(element.text, quote=False))
    for child in element:
        _render(child, parts)
        if child.tail:
            parts.append(escape(child.tail, quote=False))
    if not namespaced:
        parts.append(f"</{tag}>")


def open_binary(path: Path) -> io.BufferedIOBase:
    """Open a file for reading bytes, decompressing ``.gz`` on the fly."""
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")
    return path.open("rb")


def sniff_root_tag(path: Path) -> str | None:
    """Name of the first element in an XML file (``.gz`` transparently), skipping the prolog and DOCTYPE."""
    with open_binary(path) as stream:
        head = stream.read(8192)
    body = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.DOTALL)
    match = _FIRST_ELEMENT.search(body)
    return local_name(match.group(1).decode("ascii", "replace")) if match else None
