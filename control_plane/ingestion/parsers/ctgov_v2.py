"""ClinicalTrials.gov API v2 JSON (``protocolSection``/``resultsSection``) -> :class:`TrialRecord`.

camelCase keys, plain lists, enum values (``PHASE2``, ``RANDOMIZED``) rendered in registry wording, and
markdown-escaped free text unescaped.
"""

from __future__ import annotations

import re
from typing import Any

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
from control_plane.ingestion.parsers.json_access import JsonObject, get, objects, strings, text
from control_plane.ingestion.textnorm import unescape_markdown


def humanize(value: str) -> str:
    """API v2 enums as the registry words them: ``PHASE2`` -> ``Phase 2``.

    Values that are not upper-case enums pass through.
    """
    if not re.fullmatch(r"[A-Z][A-Z0-9_]+", value):
        return value
    words = re.sub(r"PHASE(\d)", r"PHASE \1", value).replace("_", " ").lower()
    return words[:1].upper() + words[1:]


def _v2_outcome_result(measure: JsonObject) -> OutcomeResult:
    rows: list[ResultRow] = []
    for klass in objects(measure, "classes"):
        for category in objects(klass, "categories"):
            label = " / ".join(p for p in (text(klass, "title"), text(category, "title")) if p)
            values = tuple(
                (
                    text(m, "groupId"),
                    format_measurement(
                        text(m, "value"), text(m, "spread"), text(m, "lowerLimit"), text(m, "upperLimit")
                    ),
                )
                for m in objects(category, "measurements")
            )
            rows.append(ResultRow(label, values))
    return OutcomeResult(
        outcome_type=humanize(text(measure, "type")),
        title=text(measure, "title"),
        description=unescape_markdown(text(measure, "description")),
        time_frame=text(measure, "timeFrame"),
        units=text(measure, "unitOfMeasure"),
        param=humanize(text(measure, "paramType")),
        groups=tuple((text(g, "id"), text(g, "title")) for g in objects(measure, "groups")),
        rows=tuple(rows),
    )


def _v2_events(module: Any, key: str) -> tuple[AdverseEvent, ...]:
    return tuple(
        AdverseEvent(
            text(event, "organSystem"),
            text(event, "term"),
            tuple(
                (text(s, "groupId"), text(s, "numAffected"), text(s, "numAtRisk"))
                for s in objects(event, "stats")
            ),
        )
        for event in objects(module, key)
    )


def _v2_adverse_events(results: Any) -> AdverseEvents | None:
    module = get(results, "adverseEventsModule")
    if not isinstance(module, dict):
        return None
    return AdverseEvents(
        groups=tuple((text(g, "id"), text(g, "title")) for g in objects(module, "eventGroups")),
        serious=_v2_events(module, "seriousEvents"),
        other=_v2_events(module, "otherEvents"),
        description=unescape_markdown(text(module, "description")),
        time_frame=text(module, "timeFrame"),
        frequency_threshold=text(module, "frequencyThreshold"),
    )


def trial_from_v2(study: JsonObject) -> TrialRecord:
    """Map one API v2 study; raises ``ValueError`` without an NCT id."""
    protocol = get(study, "protocolSection")
    nct_id = text(protocol, "identificationModule", "nctId")
    if not nct_id:
        raise ValueError("no protocolSection.identificationModule.nctId")
    ident, status = get(protocol, "identificationModule"), get(protocol, "statusModule")
    design, arms = get(protocol, "designModule"), get(protocol, "armsInterventionsModule")
    eligibility, derived = get(protocol, "eligibilityModule"), get(study, "derivedSection")
    design_info = get(design, "designInfo")
    enrollment = text(design, "enrollmentInfo", "count")
    enrollment_type = humanize(text(design, "enrollmentInfo", "type"))
    outcomes = get(protocol, "outcomesModule")
    return TrialRecord(
        nct_id=nct_id,
        brief_title=text(ident, "briefTitle"),
        official_title=text(ident, "officialTitle"),
        acronym=text(ident, "acronym"),
        org_study_id=text(ident, "orgStudyIdInfo", "id"),
        secondary_ids=tuple(text(item, "id") for item in objects(ident, "secondaryIdInfos")),
        nct_aliases=strings(ident, "nctIdAliases"),
        overall_status=humanize(text(status, "overallStatus")),
        sponsor=text(protocol, "sponsorCollaboratorsModule", "leadSponsor", "name"),
        brief_summary=unescape_markdown(text(protocol, "descriptionModule", "briefSummary")),
        detailed_description=unescape_markdown(text(protocol, "descriptionModule", "detailedDescription")),
        conditions=strings(protocol, "conditionsModule", "conditions"),
        keywords=strings(protocol, "conditionsModule", "keywords"),
        condition_mesh_terms=tuple(
            text(m, "term") for m in objects(derived, "conditionBrowseModule", "meshes")
        ),
        intervention_mesh_terms=tuple(
            text(m, "term") for m in objects(derived, "interventionBrowseModule", "meshes")
        ),
        study_type=humanize(text(design, "studyType")),
        phases=tuple(humanize(p) for p in strings(design, "phases")),
        design={
            name: humanize(value)
            for name, value in (
                ("allocation", text(design_info, "allocation")),
                ("intervention_model", text(design_info, "interventionModel")),
                ("primary_purpose", text(design_info, "primaryPurpose")),
                ("masking", text(design_info, "maskingInfo", "masking")),
                ("observational_model", text(design_info, "observationalModel")),
                ("time_perspective", text(design_info, "timePerspective")),
            )
            if value
        },
        enrollment=f"{enrollment} ({enrollment_type})" if enrollment and enrollment_type else enrollment,
        arms=tuple(
            Arm(
                text(arm, "label"),
                humanize(text(arm, "type")),
                unescape_markdown(text(arm, "description")),
                strings(arm, "interventionNames"),
            )
            for arm in objects(arms, "armGroups")
        ),
        interventions=tuple(
            Intervention(
                humanize(text(item, "type")),
                text(item, "name"),
                unescape_markdown(text(item, "description")),
                strings(item, "armGroupLabels"),
                strings(item, "otherNames"),
            )
            for item in objects(arms, "interventions")
        ),
        planned_outcomes=tuple(
            PlannedOutcome(
                category,
                text(item, "measure"),
                unescape_markdown(text(item, "description")),
                text(item, "timeFrame"),
            )
            for category in ("primary", "secondary", "other")
            for item in objects(outcomes, f"{category}Outcomes")
        ),
        eligibility_criteria=unescape_markdown(text(eligibility, "eligibilityCriteria")),
        eligibility_facts={
            name: humanize(value)
            for name, key in (
                ("sex", "sex"),
                ("minimum_age", "minimumAge"),
                ("maximum_age", "maximumAge"),
                ("healthy_volunteers", "healthyVolunteers"),
                ("sampling_method", "samplingMethod"),
                ("study_population", "studyPopulation"),
            )
            if (value := text(eligibility, key))
        },
        dates={
            name: value
            for name, keys in (
                ("first_posted", ("studyFirstPostDateStruct", "date")),
                ("first_submitted", ("studyFirstSubmitDate",)),
                ("start", ("startDateStruct", "date")),
                ("primary_completion", ("primaryCompletionDateStruct", "date")),
                ("completion", ("completionDateStruct", "date")),
                ("last_update_posted", ("lastUpdatePostDateStruct", "date")),
                ("results_first_posted", ("resultsFirstPostDateStruct", "date")),
            )
            if (value := text(status, *keys))
        },
        outcome_results=tuple(
            _v2_outcome_result(m)
            for m in objects(study, "resultsSection", "outcomeMeasuresModule", "outcomeMeasures")
        ),
        adverse_events=_v2_adverse_events(get(study, "resultsSection")),
        source_format="api_v2_json",
    )
