"""Classic-API ClinicalTrials.gov JSON (``FullStudiesResponse``, retired 2024) -> :class:`TrialRecord`.

PascalCase keys, every list wrapped as ``{"XList": {"X": [...]}}``, values as registry-formatted text.
"""

from __future__ import annotations

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


def _classic_planned(outcomes: Any) -> tuple[PlannedOutcome, ...]:
    planned: list[PlannedOutcome] = []
    for category in ("Primary", "Secondary", "Other"):
        for item in objects(outcomes, f"{category}OutcomeList", f"{category}Outcome"):
            planned.append(
                PlannedOutcome(
                    category.lower(),
                    text(item, f"{category}OutcomeMeasure"),
                    text(item, f"{category}OutcomeDescription"),
                    text(item, f"{category}OutcomeTimeFrame"),
                )
            )
    return tuple(planned)


def _classic_outcome_result(measure: JsonObject) -> OutcomeResult:
    rows: list[ResultRow] = []
    for klass in objects(measure, "OutcomeClassList", "OutcomeClass"):
        for category in objects(klass, "OutcomeCategoryList", "OutcomeCategory"):
            label = " / ".join(
                p for p in (text(klass, "OutcomeClassTitle"), text(category, "OutcomeCategoryTitle")) if p
            )
            values = tuple(
                (
                    text(m, "OutcomeMeasurementGroupId"),
                    format_measurement(
                        text(m, "OutcomeMeasurementValue"),
                        text(m, "OutcomeMeasurementSpread"),
                        text(m, "OutcomeMeasurementLowerLimit"),
                        text(m, "OutcomeMeasurementUpperLimit"),
                    ),
                )
                for m in objects(category, "OutcomeMeasurementList", "OutcomeMeasurement")
            )
            rows.append(ResultRow(label, values))
    return OutcomeResult(
        outcome_type=text(measure, "OutcomeMeasureType"),
        title=text(measure, "OutcomeMeasureTitle"),
        description=text(measure, "OutcomeMeasureDescription"),
        time_frame=text(measure, "OutcomeMeasureTimeFrame"),
        units=text(measure, "OutcomeMeasureUnitOfMeasure"),
        param=text(measure, "OutcomeMeasureParamType"),
        groups=tuple(
            (text(g, "OutcomeGroupId"), text(g, "OutcomeGroupTitle"))
            for g in objects(measure, "OutcomeGroupList", "OutcomeGroup")
        ),
        rows=tuple(rows),
    )


def _classic_events(module: Any, prefix: str) -> tuple[AdverseEvent, ...]:
    return tuple(
        AdverseEvent(
            text(event, f"{prefix}EventOrganSystem"),
            text(event, f"{prefix}EventTerm"),
            tuple(
                (
                    text(stats, f"{prefix}EventStatsGroupId"),
                    text(stats, f"{prefix}EventStatsNumAffected"),
                    text(stats, f"{prefix}EventStatsNumAtRisk"),
                )
                for stats in objects(event, f"{prefix}EventStatsList", f"{prefix}EventStats")
            ),
        )
        for event in objects(module, f"{prefix}EventList", f"{prefix}Event")
    )


def _classic_adverse_events(results: Any) -> AdverseEvents | None:
    module = get(results, "AdverseEventsModule")
    if not isinstance(module, dict):
        return None
    return AdverseEvents(
        groups=tuple(
            (text(g, "EventGroupId"), text(g, "EventGroupTitle"))
            for g in objects(module, "EventGroupList", "EventGroup")
        ),
        serious=_classic_events(module, "Serious"),
        other=_classic_events(module, "Other"),
        description=text(module, "EventsDescription"),
        time_frame=text(module, "EventsTimeFrame"),
        frequency_threshold=text(module, "EventsFrequencyThreshold"),
    )


def trial_from_classic(study: JsonObject) -> TrialRecord:
    """Map one classic-API ``Study``; raises ``ValueError`` without an NCT id."""
    protocol = get(study, "ProtocolSection")
    nct_id = text(protocol, "IdentificationModule", "NCTId")
    if not nct_id:
        raise ValueError("no ProtocolSection.IdentificationModule.NCTId")
    ident, status = get(protocol, "IdentificationModule"), get(protocol, "StatusModule")
    design, arms = get(protocol, "DesignModule"), get(protocol, "ArmsInterventionsModule")
    eligibility, derived = get(protocol, "EligibilityModule"), get(study, "DerivedSection")
    design_info = get(design, "DesignInfo")
    enrollment = text(design, "EnrollmentInfo", "EnrollmentCount")
    enrollment_type = text(design, "EnrollmentInfo", "EnrollmentType")
    return TrialRecord(
        nct_id=nct_id,
        brief_title=text(ident, "BriefTitle"),
        official_title=text(ident, "OfficialTitle"),
        acronym=text(ident, "Acronym"),
        org_study_id=text(ident, "OrgStudyIdInfo", "OrgStudyId"),
        secondary_ids=tuple(
            text(item, "SecondaryId") for item in objects(ident, "SecondaryIdInfoList", "SecondaryIdInfo")
        ),
        nct_aliases=strings(ident, "NCTIdAliasList", "NCTIdAlias"),
        overall_status=text(status, "OverallStatus"),
        sponsor=text(protocol, "SponsorCollaboratorsModule", "LeadSponsor", "LeadSponsorName"),
        brief_summary=text(protocol, "DescriptionModule", "BriefSummary"),
        detailed_description=text(protocol, "DescriptionModule", "DetailedDescription"),
        conditions=strings(protocol, "ConditionsModule", "ConditionList", "Condition"),
        keywords=strings(protocol, "ConditionsModule", "KeywordList", "Keyword"),
        condition_mesh_terms=tuple(
            text(m, "ConditionMeshTerm")
            for m in objects(derived, "ConditionBrowseModule", "ConditionMeshList", "ConditionMesh")
        ),
        intervention_mesh_terms=tuple(
            text(m, "InterventionMeshTerm")
            for m in objects(derived, "InterventionBrowseModule", "InterventionMeshList", "InterventionMesh")
        ),
        study_type=text(design, "StudyType"),
        phases=strings(design, "PhaseList", "Phase"),
        design={
            name: value
            for name, value in (
                ("allocation", text(design_info, "DesignAllocation")),
                ("intervention_model", text(design_info, "DesignInterventionModel")),
                ("primary_purpose", text(design_info, "DesignPrimaryPurpose")),
                ("masking", text(design_info, "DesignMaskingInfo", "DesignMasking")),
                (
                    "observational_model",
                    ", ".join(
                        strings(design_info, "DesignObservationalModelList", "DesignObservationalModel")
                    ),
                ),
                (
                    "time_perspective",
                    ", ".join(strings(design_info, "DesignTimePerspectiveList", "DesignTimePerspective")),
                ),
            )
            if value
        },
        enrollment=f"{enrollment} ({enrollment_type})" if enrollment and enrollment_type else enrollment,
        arms=tuple(
            Arm(
                text(arm, "ArmGroupLabel"),
                text(arm, "ArmGroupType"),
                text(arm, "ArmGroupDescription"),
                strings(arm, "ArmGroupInterventionList", "ArmGroupInterventionName"),
            )
            for arm in objects(arms, "ArmGroupList", "ArmGroup")
        ),
        interventions=tuple(
            Intervention(
                text(item, "InterventionType"),
                text(item, "InterventionName"),
                text(item, "InterventionDescription"),
                strings(item, "InterventionArmGroupLabelList", "InterventionArmGroupLabel"),
                strings(item, "InterventionOtherNameList", "InterventionOtherName"),
            )
            for item in objects(arms, "InterventionList", "Intervention")
        ),
        planned_outcomes=_classic_planned(get(protocol, "OutcomesModule")),
        eligibility_criteria=text(eligibility, "EligibilityCriteria"),
        eligibility_facts={
            name: value
            for name, key in (
                ("sex", "Gender"),
                ("minimum_age", "MinimumAge"),
                ("maximum_age", "MaximumAge"),
                ("healthy_volunteers", "HealthyVolunteers"),
                ("sampling_method", "SamplingMethod"),
                ("study_population", "StudyPopulation"),
            )
            if (value := text(eligibility, key))
        },
        dates={
            name: value
            for name, keys in (
                ("first_posted", ("StudyFirstPostDateStruct", "StudyFirstPostDate")),
                ("first_submitted", ("StudyFirstSubmitDate",)),
                ("start", ("StartDateStruct", "StartDate")),
                ("primary_completion", ("PrimaryCompletionDateStruct", "PrimaryCompletionDate")),
                ("completion", ("CompletionDateStruct", "CompletionDate")),
                ("last_update_posted", ("LastUpdatePostDateStruct", "LastUpdatePostDate")),
                ("results_first_posted", ("ResultsFirstPostDateStruct", "ResultsFirstPostDate")),
            )
            if (value := text(status, *keys))
        },
        outcome_results=tuple(
            _classic_outcome_result(measure)
            for measure in objects(
                study, "ResultsSection", "OutcomeMeasuresModule", "OutcomeMeasureList", "OutcomeMeasure"
            )
        ),
        adverse_events=_classic_adverse_events(get(study, "ResultsSection")),
        source_format="classic_json",
    )
