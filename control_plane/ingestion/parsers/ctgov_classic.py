"""Classic-API ClinicalTrials.gov JSON (``FullStudiesResponse``, retired 2024) as a field map.

PascalCase keys, every list wrapped as ``{"XList": {"X": [...]}}``, values already in registry wording.
"""

from __future__ import annotations

from control_plane.ingestion.parsers.ctgov_json import (
    AdverseEventsMap,
    ArmsMap,
    OutcomeResultsMap,
    PlannedOutcomesMap,
    TrialJsonMap,
    read_trial,
)
from control_plane.ingestion.parsers.ctgov_record import TrialRecord
from control_plane.ingestion.parsers.json_access import JsonObject

CLASSIC = TrialJsonMap(
    source_format="classic_json",
    protocol="ProtocolSection",
    derived="DerivedSection",
    results="ResultsSection",
    texts={
        "nct_id": (("IdentificationModule", "NCTId"), "plain"),
        "brief_title": (("IdentificationModule", "BriefTitle"), "plain"),
        "official_title": (("IdentificationModule", "OfficialTitle"), "plain"),
        "acronym": (("IdentificationModule", "Acronym"), "plain"),
        "org_study_id": (("IdentificationModule", "OrgStudyIdInfo", "OrgStudyId"), "plain"),
        "overall_status": (("StatusModule", "OverallStatus"), "enum"),
        "sponsor": (("SponsorCollaboratorsModule", "LeadSponsor", "LeadSponsorName"), "plain"),
        "brief_summary": (("DescriptionModule", "BriefSummary"), "prose"),
        "detailed_description": (("DescriptionModule", "DetailedDescription"), "prose"),
        "study_type": (("DesignModule", "StudyType"), "enum"),
        "eligibility_criteria": (("EligibilityModule", "EligibilityCriteria"), "prose"),
    },
    string_lists={
        "nct_aliases": (("IdentificationModule", "NCTIdAliasList", "NCTIdAlias"), "plain"),
        "conditions": (("ConditionsModule", "ConditionList", "Condition"), "plain"),
        "keywords": (("ConditionsModule", "KeywordList", "Keyword"), "plain"),
        "phases": (("DesignModule", "PhaseList", "Phase"), "enum"),
    },
    secondary_ids=(("IdentificationModule", "SecondaryIdInfoList", "SecondaryIdInfo"), "SecondaryId"),
    condition_mesh=(("ConditionBrowseModule", "ConditionMeshList", "ConditionMesh"), "ConditionMeshTerm"),
    intervention_mesh=(
        ("InterventionBrowseModule", "InterventionMeshList", "InterventionMesh"),
        "InterventionMeshTerm",
    ),
    enrollment=(
        ("DesignModule", "EnrollmentInfo", "EnrollmentCount"),
        ("DesignModule", "EnrollmentInfo", "EnrollmentType"),
    ),
    design_info=("DesignModule", "DesignInfo"),
    design={
        "allocation": ("DesignAllocation",),
        "intervention_model": ("DesignInterventionModel",),
        "primary_purpose": ("DesignPrimaryPurpose",),
        "masking": ("DesignMaskingInfo", "DesignMasking"),
        "observational_model": ("DesignObservationalModelList", "DesignObservationalModel"),
        "time_perspective": ("DesignTimePerspectiveList", "DesignTimePerspective"),
    },
    eligibility=("EligibilityModule",),
    eligibility_facts={
        "sex": "Gender",
        "minimum_age": "MinimumAge",
        "maximum_age": "MaximumAge",
        "healthy_volunteers": "HealthyVolunteers",
        "sampling_method": "SamplingMethod",
        "study_population": "StudyPopulation",
    },
    status=("StatusModule",),
    dates={
        "first_posted": ("StudyFirstPostDateStruct", "StudyFirstPostDate"),
        "first_submitted": ("StudyFirstSubmitDate",),
        "start": ("StartDateStruct", "StartDate"),
        "primary_completion": ("PrimaryCompletionDateStruct", "PrimaryCompletionDate"),
        "completion": ("CompletionDateStruct", "CompletionDate"),
        "last_update_posted": ("LastUpdatePostDateStruct", "LastUpdatePostDate"),
        "results_first_posted": ("ResultsFirstPostDateStruct", "ResultsFirstPostDate"),
    },
    arms=ArmsMap(
        module=("ArmsInterventionsModule",),
        arms=("ArmGroupList", "ArmGroup"),
        label="ArmGroupLabel",
        arm_type="ArmGroupType",
        description="ArmGroupDescription",
        intervention_names=("ArmGroupInterventionList", "ArmGroupInterventionName"),
        interventions=("InterventionList", "Intervention"),
        intervention_type="InterventionType",
        intervention_name="InterventionName",
        intervention_description="InterventionDescription",
        arm_group_labels=("InterventionArmGroupLabelList", "InterventionArmGroupLabel"),
        other_names=("InterventionOtherNameList", "InterventionOtherName"),
    ),
    planned=PlannedOutcomesMap(
        items=("OutcomesModule", "{Category}OutcomeList", "{Category}Outcome"),
        measure="{Category}OutcomeMeasure",
        description="{Category}OutcomeDescription",
        time_frame="{Category}OutcomeTimeFrame",
    ),
    outcome_results=OutcomeResultsMap(
        measures=("ResultsSection", "OutcomeMeasuresModule", "OutcomeMeasureList", "OutcomeMeasure"),
        outcome_type="OutcomeMeasureType",
        title="OutcomeMeasureTitle",
        description="OutcomeMeasureDescription",
        time_frame="OutcomeMeasureTimeFrame",
        units="OutcomeMeasureUnitOfMeasure",
        param="OutcomeMeasureParamType",
        groups=("OutcomeGroupList", "OutcomeGroup"),
        group_id="OutcomeGroupId",
        group_title="OutcomeGroupTitle",
        classes=("OutcomeClassList", "OutcomeClass"),
        class_title="OutcomeClassTitle",
        categories=("OutcomeCategoryList", "OutcomeCategory"),
        category_title="OutcomeCategoryTitle",
        measurements=("OutcomeMeasurementList", "OutcomeMeasurement"),
        measurement_group="OutcomeMeasurementGroupId",
        value="OutcomeMeasurementValue",
        spread="OutcomeMeasurementSpread",
        lower="OutcomeMeasurementLowerLimit",
        upper="OutcomeMeasurementUpperLimit",
    ),
    adverse_events=AdverseEventsMap(
        module=("AdverseEventsModule",),
        groups=("EventGroupList", "EventGroup"),
        group_id="EventGroupId",
        group_title="EventGroupTitle",
        events=("{Prefix}EventList", "{Prefix}Event"),
        organ_system="{Prefix}EventOrganSystem",
        term="{Prefix}EventTerm",
        stats=("{Prefix}EventStatsList", "{Prefix}EventStats"),
        stats_group="{Prefix}EventStatsGroupId",
        affected="{Prefix}EventStatsNumAffected",
        at_risk="{Prefix}EventStatsNumAtRisk",
        description="EventsDescription",
        time_frame="EventsTimeFrame",
        frequency_threshold="EventsFrequencyThreshold",
    ),
)


def trial_from_classic(study: JsonObject) -> TrialRecord:
    """Map one classic-API ``Study``; raises ``ValueError`` without an NCT id."""
    return read_trial(study, CLASSIC)
