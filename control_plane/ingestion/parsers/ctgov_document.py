"""Lay out a :class:`TrialRecord` as a document: registry fields become sections, results become tables.

Section order in the canonical text: brief summary, detailed description, conditions, study design,
arms, interventions, eligibility (facts, then inclusion / exclusion when the text is headed so), planned
outcome measures (primary, secondary, other), adverse-event overview. Results become tables: one per
reported outcome measure (kind ``outcome_results``; intent ``ae`` when the measure is about adverse
events, toxicity or safety) and one each for serious and other adverse events (kind
``adverse_events``). Structured facts ride along as ``facet_json`` on the section they describe.
Every chunk carries the trial's identifiers: NCT id, NCT aliases, org study id, secondary ids, acronym.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from html import escape
from pathlib import Path
from typing import Any

from control_plane.clinical.labels import IntentHint, is_adverse_event_measure
from control_plane.ingestion.assembly import SectionDraft, TableDraft, assemble_document
from control_plane.ingestion.dates import parse_loose_date
from control_plane.ingestion.documents import Document
from control_plane.ingestion.parsers.ctgov_record import (
    AdverseEvent,
    AdverseEvents,
    OutcomeResult,
    TrialRecord,
)
from control_plane.ingestion.parsers.dosage import dosage_facts
from control_plane.ingestion.parsers.eligibility import split_criteria
from control_plane.ingestion.textnorm import split_paragraphs

Splitter = Callable[[str], list[str]]
_FACT_LABELS = {
    "sex": "Sex",
    "minimum_age": "Minimum age",
    "maximum_age": "Maximum age",
    "healthy_volunteers": "Accepts healthy volunteers",
    "sampling_method": "Sampling method",
}


def _facet(facts: dict[str, Any]) -> str | None:
    """Compact, key-sorted JSON of the non-empty facts (stable, so content hashes are stable)."""
    kept = {key: value for key, value in facts.items() if value not in (None, "", [], {}, ())}
    return json.dumps(kept, sort_keys=True, ensure_ascii=False) if kept else None


def _sentence(*parts: str) -> str:
    """Join the non-empty parts as sentences, adding a full stop where a part lacks end punctuation."""
    return " ".join(
        part.strip() if part.strip().endswith((".", ":", "?", "!")) else f"{part.strip()}."
        for part in parts
        if part.strip()
    )


def _overview_sections(trial: TrialRecord, split: Splitter) -> list[SectionDraft]:
    conditions = SectionDraft(
        "Conditions",
        "conditions",
        ("Conditions",),
        tuple(
            f"{label}: {'; '.join(values)}."
            for label, values in (
                ("Conditions", trial.conditions),
                ("Keywords", trial.keywords),
                ("MeSH terms", trial.condition_mesh_terms),
            )
            if values
        ),
        _facet(
            {
                "conditions": list(trial.conditions),
                "keywords": list(trial.keywords),
                "condition_mesh_terms": list(trial.condition_mesh_terms),
            }
        ),
    )
    design_facts = {
        "study_type": trial.study_type,
        "phases": list(trial.phases),
        **trial.design,
        "enrollment": trial.enrollment,
    }
    design_line = " ".join(
        f"{key.replace('_', ' ').capitalize()}: {', '.join(value) if isinstance(value, list) else value}."
        for key, value in design_facts.items()
        if value
    )
    return [
        SectionDraft("Brief Summary", "summary", ("Brief Summary",), tuple(split(trial.brief_summary))),
        SectionDraft(
            "Detailed Description",
            "description",
            ("Detailed Description",),
            tuple(split(trial.detailed_description)),
        ),
        conditions,
        SectionDraft("Study Design", "design", ("Study Design",), (design_line,), _facet(design_facts)),
    ]


def _intervention_sections(trial: TrialRecord) -> list[SectionDraft]:
    arms = SectionDraft(
        "Arms",
        "interventions",
        ("Arms and Interventions", "Arms"),
        tuple(
            _sentence(f"{arm.label} ({arm.arm_type})" if arm.arm_type else arm.label, arm.description)
            + (f" Interventions: {'; '.join(arm.intervention_names)}." if arm.intervention_names else "")
            for arm in trial.arms
        ),
        _facet(
            {
                "arms": [
                    {
                        "label": arm.label,
                        "type": arm.arm_type,
                        "description": arm.description,
                        "interventions": list(arm.intervention_names),
                        **dosage_facts(arm.description),
                    }
                    for arm in trial.arms
                ]
            }
        ),
    )
    interventions = SectionDraft(
        "Interventions",
        "interventions",
        ("Arms and Interventions", "Interventions"),
        tuple(
            _sentence(
                f"{item.intervention_type}: {item.name}" if item.intervention_type else item.name,
                item.description,
                f"Other names: {'; '.join(item.other_names)}" if item.other_names else "",
                f"Arms: {'; '.join(item.arm_group_labels)}" if item.arm_group_labels else "",
            )
            for item in trial.interventions
        ),
        _facet(
            {
                "interventions": [
                    {
                        "type": item.intervention_type,
                        "name": item.name,
                        "description": item.description,
                        "other_names": list(item.other_names),
                        "arm_group_labels": list(item.arm_group_labels),
                        **dosage_facts(item.description),
                    }
                    for item in trial.interventions
                ]
            }
        ),
    )
    return [arms, interventions]


def _eligibility_sections(trial: TrialRecord, split: Splitter) -> list[SectionDraft]:
    facts = trial.eligibility_facts
    facet = _facet(dict(facts))
    fact_line = " ".join(f"{label}: {facts[key]}." for key, label in _FACT_LABELS.items() if facts.get(key))
    population = split(facts.get("study_population", ""))
    blocks = split_criteria(split(trial.eligibility_criteria))
    sections: list[SectionDraft] = []
    lead = [fact_line, *population]
    if blocks and blocks[0].kind == "eligibility":
        lead.extend(blocks.pop(0).paragraphs)
    sections.append(SectionDraft("Eligibility", "eligibility", ("Eligibility",), tuple(lead), facet))
    for block in blocks:
        path = ("Eligibility", *((block.scope,) if block.scope else ()), block.heading)
        sections.append(SectionDraft(block.heading, block.kind, path, block.paragraphs, facet))
    return sections


def _outcome_sections(trial: TrialRecord) -> list[SectionDraft]:
    sections: list[SectionDraft] = []
    for category in ("primary", "secondary", "other"):
        outcomes = [o for o in trial.planned_outcomes if o.category == category]
        if not outcomes:
            continue
        label = f"{category.capitalize()} Outcome Measures"
        paragraphs = tuple(
            _sentence(o.measure, o.description, f"Time frame: {o.time_frame}" if o.time_frame else "")
            for o in outcomes
        )
        facet = _facet(
            {
                "outcome_measures": [
                    {
                        "category": category,
                        "measure": o.measure,
                        "description": o.description,
                        "time_frame": o.time_frame,
                    }
                    for o in outcomes
                ]
            }
        )
        sections.append(SectionDraft(label, "outcomes", ("Outcome Measures", label), paragraphs, facet))
    return sections


def _html_table(header: list[str], rows: Iterable[list[str]]) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _grid_table(
    label: str,
    kind: str,
    caption: str,
    path: tuple[str, ...],
    header: list[str],
    rows: list[list[str]],
    facet: str | None,
    intent: IntentHint | None = None,
) -> TableDraft:
    lines = tuple(" | ".join(row) for row in [header, *rows])
    return TableDraft(label, kind, caption, _html_table(header, rows), lines, path, facet, intent)


def _outcome_result_table(number: int, result: OutcomeResult) -> TableDraft:
    group_ids = [group_id for group_id, _ in result.groups]
    header = ["Measure", *(title or group_id for group_id, title in result.groups)]
    rows = []
    for row in result.rows:
        values = dict(row.values)
        rows.append([row.label or result.title, *(values.get(group_id, "") for group_id in group_ids)])
    caption = _sentence(
        f"{result.outcome_type} outcome: {result.title}" if result.outcome_type else result.title,
        f"Units: {result.units}" if result.units else "",
        f"Time frame: {result.time_frame}" if result.time_frame else "",
    )
    facet = _facet(
        {
            "outcome_type": result.outcome_type,
            "title": result.title,
            "units": result.units,
            "param": result.param,
            "time_frame": result.time_frame,
            "groups": dict(result.groups),
            "rows": [{"label": row.label, "values": dict(row.values)} for row in result.rows],
        }
    )
    label = f"Outcome Result {number}"
    # A measure about adverse events / toxicity / safety holds adverse-event figures: route it as ae.
    intent: IntentHint | None = "ae" if is_adverse_event_measure(result.title) else None
    path = ("Results", "Outcome Results", label)
    return _grid_table(label, "outcome_results", caption, path, header, rows, facet, intent)


def _event_table(name: str, events: tuple[AdverseEvent, ...], reported: AdverseEvents) -> TableDraft:
    group_ids = [group_id for group_id, _ in reported.groups]
    header = [
        "Organ system",
        "Adverse event",
        *(f"{title or gid} (affected/at risk)" for gid, title in reported.groups),
    ]
    rows = []
    for event in events:
        counts = {group_id: f"{affected}/{at_risk}" for group_id, affected, at_risk in event.counts}
        rows.append([event.organ_system, event.term, *(counts.get(group_id, "") for group_id in group_ids)])
    facet = _facet(
        {
            "seriousness": name.split()[0].lower(),
            "groups": dict(reported.groups),
            "events": [
                {
                    "organ_system": event.organ_system,
                    "term": event.term,
                    "counts": {g: {"affected": a, "at_risk": r} for g, a, r in event.counts},
                }
                for event in events
            ],
        }
    )
    caption = f"{name} by organ system; cells are participants affected / at risk per group"
    return _grid_table(
        name, "adverse_events", caption, ("Results", "Adverse Events", name), header, rows, facet
    )


def _results(trial: TrialRecord) -> tuple[list[SectionDraft], list[TableDraft]]:
    tables = [_outcome_result_table(i, result) for i, result in enumerate(trial.outcome_results, start=1)]
    reported = trial.adverse_events
    if reported is None:
        return [], tables
    overview = SectionDraft(
        "Adverse Events",
        "adverse_events",
        ("Results", "Adverse Events"),
        (
            reported.description,
            f"Time frame: {reported.time_frame}" if reported.time_frame else "",
            f"Frequency threshold for other adverse events: {reported.frequency_threshold}%"
            if reported.frequency_threshold
            else "",
        ),
        _facet({"groups": dict(reported.groups), "frequency_threshold": reported.frequency_threshold}),
    )
    for name, events in (
        ("Serious adverse events", reported.serious),
        ("Other adverse events", reported.other),
    ):
        if events:
            tables.append(_event_table(name, events, reported))
    return [overview], tables


def trial_document(trial: TrialRecord, path: Path) -> Document:
    """Lay out one study record as a document (see the module docstring for the section order)."""
    lines_are_paragraphs = trial.source_format != "legacy_xml"

    def split(text: str) -> list[str]:
        return split_paragraphs(text, lines_are_paragraphs=lines_are_paragraphs)

    result_sections, tables = _results(trial)
    sections = [
        *_overview_sections(trial, split),
        *_intervention_sections(trial),
        *(
            _eligibility_sections(trial, split)
            if trial.eligibility_criteria or trial.eligibility_facts
            else []
        ),
        *_outcome_sections(trial),
        *result_sections,
    ]
    parsed_dates = {name: parse_loose_date(value) for name, value in trial.dates.items()}
    published = parsed_dates.get("first_posted") or parsed_dates.get("first_submitted")
    return assemble_document(
        doc_id=trial.nct_id,
        title=trial.brief_title or trial.official_title or trial.nct_id,
        source="ctgov",
        doc_type="clinical_trial",
        url=f"https://clinicaltrials.gov/study/{trial.nct_id}",
        publication_date=published,
        sections=sections,
        tables=tables,
        metadata={
            "nct_id": trial.nct_id,
            "official_title": trial.official_title or None,
            "acronym": trial.acronym or None,
            "org_study_id": trial.org_study_id or None,
            "secondary_ids": list(trial.secondary_ids),
            "nct_aliases": list(trial.nct_aliases),
            "overall_status": trial.overall_status or None,
            "sponsor": trial.sponsor or None,
            "study_type": trial.study_type or None,
            "phases": list(trial.phases),
            "conditions": list(trial.conditions),
            "condition_mesh_terms": list(trial.condition_mesh_terms),
            "intervention_mesh_terms": list(trial.intervention_mesh_terms),
            "enrollment": trial.enrollment or None,
            "eligibility": dict(trial.eligibility_facts),
            "dates": {name: value.isoformat() for name, value in parsed_dates.items() if value},
            "has_results": bool(trial.outcome_results or trial.adverse_events),
            "source_format": trial.source_format,
            "file": path.name,
        },
        identifiers=(
            trial.nct_id,
            *trial.nct_aliases,
            trial.org_study_id,
            *trial.secondary_ids,
            trial.acronym,
        ),
    )
