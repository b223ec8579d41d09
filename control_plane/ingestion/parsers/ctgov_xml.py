"""Legacy ClinicalTrials.gov XML (``<clinical_study>``, the pre-2023 download) -> :class:`TrialRecord`."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from control_plane.ingestion.parsers.ctgov_record import (
    AdverseEvent,
    AdverseEvents,
    Arm,
    Intervention,
    OutcomeResult,
    PlannedOutcome,
    ResultRow,
    TrialRecord,
    format_measurement,
)

_DATE_FIELDS = {
    "first_posted": "study_first_posted",
    "first_submitted": "study_first_submitted",
    "start": "start_date",
    "primary_completion": "primary_completion_date",
    "completion": "completion_date",
    "last_update_posted": "last_update_posted",
    "results_first_posted": "results_first_posted",
}
_ELIGIBILITY_FACTS = {
    "sex": "gender",
    "minimum_age": "minimum_age",
    "maximum_age": "maximum_age",
    "healthy_volunteers": "healthy_volunteers",
    "sampling_method": "sampling_method",
    "study_population": "study_pop/textblock",
}


def _text(element: ET.Element | None, path: str = ".") -> str:
    """Raw text (whitespace kept: text blocks are re-flowed later) of ``path`` under ``element``."""
    if element is None:
        return ""
    found = element.find(path)
    return "".join(found.itertext()).strip() if found is not None else ""


def _texts(element: ET.Element | None, path: str) -> tuple[str, ...]:
    if element is None:
        return ()
    return tuple(text for text in ("".join(e.itertext()).strip() for e in element.findall(path)) if text)


def _groups(container: ET.Element) -> tuple[tuple[str, str], ...]:
    return tuple(
        (group.get("group_id", ""), _text(group, "title") or _text(group, "description")[:80])
        for group in container.findall("group_list/group")
    )


def _measurement(element: ET.Element) -> str:
    get = element.attrib.get
    return format_measurement(
        get("value", ""), get("spread", ""), get("lower_limit", ""), get("upper_limit", "")
    )


def _outcome_result(outcome: ET.Element) -> OutcomeResult:
    measure = outcome.find("measure")
    rows: list[ResultRow] = []
    for klass in outcome.findall("measure/class_list/class"):
        for category in klass.findall("category_list/category"):
            label = " / ".join(part for part in (_text(klass, "title"), _text(category, "title")) if part)
            values = tuple(
                (m.get("group_id", ""), _measurement(m))
                for m in category.findall("measurement_list/measurement")
            )
            rows.append(ResultRow(label, values))
    return OutcomeResult(
        outcome_type=_text(outcome, "type"),
        title=_text(outcome, "title"),
        description=_text(outcome, "description"),
        time_frame=_text(outcome, "time_frame"),
        units=_text(measure, "units"),
        param=_text(measure, "param"),
        groups=_groups(outcome),
        rows=tuple(rows),
    )


def _events(container: ET.Element | None) -> tuple[AdverseEvent, ...]:
    if container is None:
        return ()
    events: list[AdverseEvent] = []
    for category in container.findall("category_list/category"):
        organ_system = _text(category, "title")
        for event in category.findall("event_list/event"):
            counts = tuple(
                (c.get("group_id", ""), c.get("subjects_affected", ""), c.get("subjects_at_risk", ""))
                for c in event.findall("counts")
            )
            events.append(AdverseEvent(organ_system, _text(event, "sub_title"), counts))
    return tuple(events)


def _adverse_events(study: ET.Element) -> AdverseEvents | None:
    reported = study.find("clinical_results/reported_events")
    if reported is None:
        return None
    return AdverseEvents(
        groups=_groups(reported),
        serious=_events(reported.find("serious_events")),
        other=_events(reported.find("other_events")),
        description=_text(reported, "desc"),
        time_frame=_text(reported, "time_frame"),
        frequency_threshold=_text(reported, "other_events/frequency_threshold"),
    )


def _enrollment(study: ET.Element) -> str:
    element = study.find("enrollment")
    count = _text(element)
    kind = element.get("type") if element is not None else None
    return f"{count} ({kind})" if count and kind else count


def trial_from_xml(study: ET.Element) -> TrialRecord:
    """Map a ``<clinical_study>`` element; raises ``ValueError`` when it has no NCT id."""
    nct_id = _text(study, "id_info/nct_id")
    if not nct_id:
        raise ValueError("no id_info/nct_id")
    eligibility = study.find("eligibility")
    design = study.find("study_design_info")
    return TrialRecord(
        nct_id=nct_id,
        brief_title=_text(study, "brief_title"),
        official_title=_text(study, "official_title"),
        acronym=_text(study, "acronym"),
        org_study_id=_text(study, "id_info/org_study_id"),
        secondary_ids=_texts(study, "id_info/secondary_id"),
        nct_aliases=_texts(study, "id_info/nct_alias"),
        overall_status=_text(study, "overall_status"),
        sponsor=_text(study, "sponsors/lead_sponsor/agency"),
        brief_summary=_text(study, "brief_summary/textblock"),
        detailed_description=_text(study, "detailed_description/textblock"),
        conditions=_texts(study, "condition"),
        keywords=_texts(study, "keyword"),
        condition_mesh_terms=_texts(study, "condition_browse/mesh_term"),
        intervention_mesh_terms=_texts(study, "intervention_browse/mesh_term"),
        study_type=_text(study, "study_type"),
        phases=_texts(study, "phase"),
        design={child.tag: _text(child) for child in design} if design is not None else {},
        enrollment=_enrollment(study),
        arms=tuple(
            Arm(_text(arm, "arm_group_label"), _text(arm, "arm_group_type"), _text(arm, "description"))
            for arm in study.findall("arm_group")
        ),
        interventions=tuple(
            Intervention(
                _text(item, "intervention_type"),
                _text(item, "intervention_name"),
                _text(item, "description"),
                _texts(item, "arm_group_label"),
                _texts(item, "other_name"),
            )
            for item in study.findall("intervention")
        ),
        planned_outcomes=tuple(
            PlannedOutcome(
                tag.removesuffix("_outcome"),
                _text(item, "measure"),
                _text(item, "description"),
                _text(item, "time_frame"),
            )
            for tag in ("primary_outcome", "secondary_outcome", "other_outcome")
            for item in study.findall(tag)
        ),
        eligibility_criteria=_text(eligibility, "criteria/textblock"),
        eligibility_facts={
            name: value for name, path in _ELIGIBILITY_FACTS.items() if (value := _text(eligibility, path))
        },
        dates={name: value for name, path in _DATE_FIELDS.items() if (value := _text(study, path))},
        outcome_results=tuple(
            _outcome_result(outcome) for outcome in study.findall("clinical_results/outcome_list/outcome")
        ),
        adverse_events=_adverse_events(study),
        source_format="legacy_xml",
    )
