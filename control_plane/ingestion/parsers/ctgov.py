"""ClinicalTrials.gov study records -> documents, whichever of the registry's three shapes a file holds.

``.xml`` files are the legacy ``<clinical_study>`` download; ``.json`` files are either a classic-API
``FullStudiesResponse`` or an API v2 study (or a v2 ``{"studies": [...]}`` page). Each shape has its own
reader onto :class:`~control_plane.ingestion.parsers.ctgov_record.TrialRecord`; layout is shared
(:mod:`control_plane.ingestion.parsers.ctgov_document`).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from control_plane.ingestion.documents import Document
from control_plane.ingestion.errors import ParseError, raise_errors
from control_plane.ingestion.parsers.ctgov_classic import trial_from_classic
from control_plane.ingestion.parsers.ctgov_document import trial_document
from control_plane.ingestion.parsers.ctgov_v2 import trial_from_v2
from control_plane.ingestion.parsers.ctgov_xml import trial_from_xml
from control_plane.ingestion.parsers.json_access import JsonObject, objects
from control_plane.ingestion.parsers.safe_xml import XmlRefusedError, parse_root
from control_plane.ingestion.parsers.xml_text import error_location


def study_payloads(payload: Any) -> list[tuple[str, JsonObject]]:
    """``(shape, study)`` pairs in a JSON file: ``("classic", Study)`` per full study, or ``("v2", root)``."""
    if isinstance(payload, dict) and "FullStudiesResponse" in payload:
        studies = objects(payload, "FullStudiesResponse", "FullStudies")
        return [("classic", study["Study"]) for study in studies if isinstance(study.get("Study"), dict)]
    if isinstance(payload, dict) and "protocolSection" in payload:
        return [("v2", payload)]
    if isinstance(payload, dict) and isinstance(payload.get("studies"), list):
        return [("v2", study) for study in objects(payload, "studies")]
    return []


def _iter_xml(path: Path) -> Iterator[Document | ParseError]:
    try:
        root = parse_root(path)
    except ET.ParseError as error:
        yield ParseError(path, error_location(error), f"malformed XML: {error}")
        return
    except XmlRefusedError as error:
        yield ParseError(path, error.location, error.reason)
        return
    if root.tag != "clinical_study":
        yield ParseError(path, f"/{root.tag}", "root element is not <clinical_study>")
        return
    try:
        yield trial_document(trial_from_xml(root), path)
    except ValueError as error:
        yield ParseError(path, "/clinical_study", str(error))


def _iter_json(path: Path) -> Iterator[Document | ParseError]:
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        yield ParseError(path, f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}")
        return
    studies = study_payloads(payload)
    if not studies:
        yield ParseError(path, "$", "neither a FullStudiesResponse nor an API v2 study")
        return
    for index, (shape, study) in enumerate(studies):
        try:
            trial = trial_from_classic(study) if shape == "classic" else trial_from_v2(study)
            yield trial_document(trial, path)
        except ValueError as error:
            yield ParseError(path, f"study #{index}", str(error))


def iter_ctgov(path: Path | str) -> Iterator[Document | ParseError]:
    """Documents of one registry file (``.xml`` or ``.json``); problems are yielded as :class:`ParseError`."""
    path = Path(path)
    try:
        yield from _iter_json(path) if path.suffix.lower() == ".json" else _iter_xml(path)
    except (OSError, UnicodeDecodeError) as error:
        yield ParseError(path, "file", f"unreadable: {error}")


def parse_ctgov(path: Path | str) -> Iterator[Document]:
    """Strict :func:`iter_ctgov`: raises the first :class:`ParseError`."""
    return raise_errors(iter_ctgov(path))
