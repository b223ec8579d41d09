"""ClinicalTrials.gov API v2 JSON (``protocolSection``/``resultsSection``) as a field map.

camelCase keys, plain lists, enum values (``PHASE2``, ``RANDOMIZED``) rendered in registry wording, and
markdown-escaped free text unescaped.
"""

from __future__ import annotations

import re

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
from control_plane.ingestion.textnorm import unescape_markdown


def humanize(value: str) -> str:
    """API v2 enums as the registry words them: ``PHASE2`` -> ``Phase 2``.

    Values that are not upper-case enums pass through.
    """
    if not re.fullmatch(r"[A-Z][A-Z0-9_]+", value):
        return value
    words = re.sub(r"PHASE(\d)", r"PHASE \1", value).replace("_", " ").lower()
    return words[:1].upper() + words[1:]


API_V2 = TrialJsonMap(
    source_format="api_v2_json",
    protocol="protocolSection",
    derived="derivedSection",
    results="resultsSection",
    texts={
        "nct_id": (("identificationModule", "nctId"), "plain"),
        "brief_title": (("identificationModule", "briefTitle"), "plain"),
        "official_title": (("identificationModule", "officialTitle"), "plain"),
        "acronym": (("identificationModule", "acronym"), "plain"),
        "org_study_id": (("identificationModule", "orgStudyIdInfo", "id"), "plain"),
        "overall_status": (("statusModule", "overallStatus"), "enum"),
        "sponsor": (("sponsorCollaboratorsModule", "leadSponsor", "name"), "plain"),
        "brief_summary": (("descriptionModule", "briefSummary"), "prose"),
        "detailed_description": (("descriptionModule", "detailedDescription"), "prose"),
        "study_type": (("designModule", "studyType"), "enum"),
        "eligibility_criteria": (("eligibilityModule", "eligibilityCriteria"), "prose"),
    },
    string_lists={
        "nct_aliases": (("identificationModule", "nctIdAliases"), "plain"),
        "conditions": (("conditionsModule", "conditions"), "plain"),
        "keywords": (("conditionsModule", "keywords"), "plain"),
        "phases": (("designModule", "phases"), "enum"),
    },
    secondary_ids=(("identificationModule", "secondaryIdInfos"), "id"),
    condition_mesh=(("conditionBrowseModule", "meshes"), "term"),
    intervention_mesh=(("interventionBrowseModule", "meshes"), "term"),
    enrollment=(("designModule", "enrollmentInfo", "count"), ("designModule", "enrollmentInfo", "type")),
    design_info=("designModule", "designInfo"),
    design={
        "allocation": ("allocation",),
        "intervention_model": ("interventionModel",),
        "primary_purpose": ("primaryPurpose",),
        "masking": ("maskingInfo", "masking"),
        "observational_model": ("observationalModel",),
        "time_perspective": ("timePerspective",),
    },
    eligibility=("eligibilityModule",),
    eligibility_facts={
        "sex": "sex",
        "minimum_age": "minimumAge",
        "maximum_age": "maximumAge",
        "healthy_volunteers": "healthyVolunteers",
        "sampling_method": "samplingMethod",
        "study_population": "studyPopulation",
    },
    status=("statusModule",),
    dates={
        "first_posted": ("studyFirstPostDateStruct", "date"),
        "first_submitted": ("studyFirstSubmitDate",),
        "start": ("startDateStruct", "date"),
        "primary_completion": ("primaryCompletionDateStruct", "date"),
        "completion": ("completionDateStruct", "date"),
        "last_update_posted": ("lastUpdatePostDateStruct", "date"),
        "results_first_posted": ("resultsFirstPostDateStruct", "date"),
    },
    arms=ArmsMap(
        module=("armsInterventionsModule",),
        arms=("armGroups",),
        label="label",
        arm_type="type",
        description="description",
        intervention_names=("interventionNames",),
        interventions=("interventions",),
        intervention_type="type",
        intervention_name="name",
        intervention_description="description",
        arm_group_labels=("armGroupLabels",),
        other_names=("otherNames",),
    ),
    planned=PlannedOutcomesMap(
        items=("outcomesModule", "{category}Outcomes"),
        measure="measure",
        description="description",
        time_frame="timeFrame",
    ),
    outcome_results=OutcomeResultsMap(
        measures=("resultsSection", "outcomeMeasuresModule", "outcomeMeasures"),
        outcome_type="type",
        title="title",
        description="description",
        time_frame="timeFrame",
        units="unitOfMeasure",
        param="paramType",
        groups=("groups",),
        group_id="id",
        group_title="title",
        classes=("classes",),
        class_title="title",
        categories=("categories",),
        category_title="title",
        measurements=("measurements",),
        measurement_group="groupId",
        value="value",
        spread="spread",
        lower="lowerLimit",
        upper="upperLimit",
    ),
    adverse_events=AdverseEventsMap(
        module=("adverseEventsModule",),
        groups=("eventGroups",),
        group_id="id",
        group_title="title",
        events=("{prefix}Events",),
        organ_system="organSystem",
        term="term",
        stats=("stats",),
        stats_group="groupId",
        affected="numAffected",
        at_risk="numAtRisk",
        description="description",
        time_frame="timeFrame",
        frequency_threshold="frequencyThreshold",
    ),
    enum=humanize,
    prose=unescape_markdown,
)


def trial_from_v2(study: JsonObject) -> TrialRecord:
    """Map one API v2 study; raises ``ValueError`` without an NCT id."""
    return read_trial(study, API_V2)
