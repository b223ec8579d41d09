"""XML parsing with entity expansion off, for every XML parser of ingest (JATS, ClinicalTrials.gov, MEDLINE).

A document that declares entities in its DTD (a billion-laughs document, an external entity pointing at
a local file such as ``/etc/hostname``) is refused as a whole, with the place of the declaration: nothing
is expanded and nothing outside the document is read. A DOCTYPE without an internal subset (the public
DTD every PMC, ClinicalTrials.gov and MEDLINE file names) is fine: the DTD it names is never fetched.

The parser is defusedxml's ``DefusedXMLParser`` (the stdlib's pure-Python ``XMLParser`` whose expat
handlers for entity declarations and external references raise); syntax errors stay
``xml.etree.ElementTree.ParseError`` with their position.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from defusedxml import (  # type: ignore[import-untyped]
    DefusedXmlException,
    EntitiesForbidden,
    ExternalReferenceForbidden,
)
from defusedxml.ElementTree import DefusedXMLParser  # type: ignore[import-untyped]

from control_plane.errors import BiohybridError
from control_plane.ingestion.parsers.xml_text import open_binary

_BLOCK_BYTES = 1 << 16
REFUSALS: tuple[type[Exception], ...] = (DefusedXmlException,)
"""What a safe parser's ``feed``/``close`` raise for a declaration it refuses (not a syntax error)."""


class XmlRefusedError(BiohybridError, ValueError):
    """A document refused for what its DTD declares; ``line`` and ``column`` (from 1) say where (the
    parsers turn it into a ParseError)."""

    def __init__(self, reason: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {reason}")
        self.reason = reason
        self.line = line
        self.column = column

    @property
    def location(self) -> str:
        return f"line {self.line}, column {self.column}"


def safe_parser() -> ET.XMLParser:
    """A tree-building parser that refuses entity declarations and external references (the DOCTYPE
    itself is allowed)."""
    parser: ET.XMLParser = DefusedXMLParser(
        target=ET.TreeBuilder(), forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    return parser


def safe_pull_parser(events: Sequence[Literal["start", "end"]]) -> ET.XMLPullParser[ET.Element]:
    """``XMLPullParser`` over :func:`safe_parser`: its ``feed`` raises one of ``REFUSALS`` for a refused
    declaration (:func:`refused` makes it an :class:`XmlRefusedError`); syntax errors come out of
    ``read_events`` as ``ET.ParseError``."""
    return ET.XMLPullParser(events=events, _parser=safe_parser())


def refusal_reason(error: Exception) -> str:
    """What the message of a refused document says."""
    if isinstance(error, EntitiesForbidden):
        if error.sysid or error.pubid:
            target = error.sysid or error.pubid
            return (
                f"entity declarations are not accepted: the DTD declares external entity {error.name!r} "
                f"({target}); it was not read"
            )
        return (
            f"entity declarations are not accepted: the DTD declares entity {error.name!r}; entities "
            "are never expanded (remove the DTD's internal subset)"
        )
    if isinstance(error, ExternalReferenceForbidden):
        return f"external references are not accepted ({error.sysid or error.pubid}); it was not read"
    return f"refused: {error}"


def _position(parser: Any) -> tuple[int, int]:
    """Where expat is in the document (column from 1): under an ``XMLPullParser`` its ``XMLParser``,
    under that the expat parser (``parser``)."""
    if isinstance(parser, ET.XMLPullParser):
        parser = getattr(parser, "_parser", None)
    expat = getattr(parser, "parser", None)
    if expat is None:
        return (0, 0)
    return int(expat.CurrentLineNumber), int(expat.CurrentColumnNumber) + 1


def refused(error: Exception, parser: Any) -> XmlRefusedError:
    """The :class:`XmlRefusedError` of a refusal (one of ``REFUSALS``) raised while ``parser`` (a
    :func:`safe_parser` or a :func:`safe_pull_parser`) was fed, at the place the parser had reached."""
    return XmlRefusedError(refusal_reason(error), *_position(parser))


def parse_root(path: Path) -> ET.Element:
    """The root element of an XML file (``.gz`` transparently): ``ET.ParseError`` for a syntax error,
    :class:`XmlRefusedError` for entity declarations, ``OSError`` for an unreadable file."""
    parser = safe_parser()
    with open_binary(path) as stream:
        try:
            while block := stream.read(_BLOCK_BYTES):
                parser.feed(block)
            root: ET.Element = parser.close()
        except REFUSALS as error:
            raise refused(error, parser) from None
    return root
