"""Parse a chunk's stored ``facet_json`` into typed facts (facet granularity).

The kind is read from the facts' own keys (an adverse-event table has ``events``, an outcome result
``rows``...) and, when the keys do not say (a design with only format-specific keys, an eligibility
facet with one fact), from the chunk's section. Bad stored facts never fail a search: the result
carries ``facet_error`` saying what was wrong, and ``facets`` is null.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pydantic import ValidationError

from control_plane.search.facet_types import FACET_MODELS, Facet, FacetKind

# Keys that only one kind of facet writes (control_plane/ingestion/parsers/ctgov_document.py), checked
# in this order: the first kind with one of its keys present wins.
_SIGNATURES: Final[tuple[tuple[FacetKind, frozenset[str]], ...]] = (
    ("adverse_events", frozenset({"events", "seriousness", "frequency_threshold"})),
    ("outcome_results", frozenset({"rows", "outcome_type", "param", "units"})),
    ("outcome_measures", frozenset({"outcome_measures"})),
    ("arms", frozenset({"arms"})),
    ("interventions", frozenset({"interventions"})),
    ("conditions", frozenset({"conditions", "keywords", "condition_mesh_terms"})),
    (
        "eligibility",
        frozenset(
            {"sex", "minimum_age", "maximum_age", "healthy_volunteers", "sampling_method", "study_population"}
        ),
    ),
    ("design", frozenset({"study_type", "phases", "enrollment"})),
)
# Section kinds (the chunk's ``section``) whose facet kind is fixed, for facts whose keys do not say.
_SECTION_KINDS: Final[Mapping[str, FacetKind]] = {
    "design": "design",
    "conditions": "conditions",
    "eligibility": "eligibility",
    "inclusion": "eligibility",
    "exclusion": "eligibility",
    "outcomes": "outcome_measures",
    "outcome_results": "outcome_results",
    "adverse_events": "adverse_events",
}
# A stored key that would clash with the discriminator is kept under this name.
STORED_KIND_KEY: Final = "stored_kind"


@dataclass(frozen=True)
class ParsedFacets:
    """The typed facts, or why there are none (exactly one of the two is set)."""

    facets: Facet | None = None
    error: str | None = None


def facet_kind(facts: Mapping[str, Any], section: str | None) -> FacetKind:
    """The kind of these facts: by their keys, else by the chunk's section, else ``other``."""
    for kind, keys in _SIGNATURES:
        if keys & facts.keys():
            return kind
    return _SECTION_KINDS.get(section or "", "other")


def parse_facets(facet_json: str | None, section: str | None = None) -> ParsedFacets:
    """``facet_json`` as typed facts. No facts (None or ""): neither facets nor error."""
    if facet_json is None or not facet_json.strip():
        return ParsedFacets()
    try:
        facts = json.loads(facet_json)
    except json.JSONDecodeError as exc:
        return ParsedFacets(error=f"facet_json is not valid JSON ({exc}); re-ingest the document")
    if not isinstance(facts, dict):
        return ParsedFacets(
            error=f"facet_json must be a JSON object, got {type(facts).__name__}; re-ingest the document"
        )
    kind = facet_kind(facts, section)
    data = dict(facts)
    if "kind" in data:
        data[STORED_KIND_KEY] = data.pop("kind")
    try:
        typed: Any = FACET_MODELS[kind].model_validate({**data, "kind": kind})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(root)'}: {error['msg']}"
            for error in exc.errors()
        )
        return ParsedFacets(error=f"facet_json does not fit the {kind} facts: {problems}")
    return ParsedFacets(facets=typed)
