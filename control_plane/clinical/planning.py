"""From a question to its clinical plan: the detected (or named) intents, the boosts they earn, the BM25
field weights, and the source restriction an intent asks for (eligibility -> ctgov). Pure: /v1/search
and the search pipelines' clinical models (control_plane/clinical/pipeline.py) both call it, so a
question gets the same plan on either path."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from control_plane.clinical.facet_boost import bm25_field_boosts
from control_plane.clinical.intents import (
    TABULAR_INTENT,
    Boost,
    DetectedIntent,
    IntentConfig,
    ManyRecordsRule,
    detect_intents,
    intents_from_override,
    load_intent_config,
    names_many_records,
    plan_boosts,
)
from control_plane.clinical.record_subject import Declarations, record_subjects, specific_words
from control_plane.config.search_settings import FacetSettings, SectionRoutingSettings
from control_plane.config.settings import Settings
from control_plane.fusion.methods import FusionMethod
from control_plane.locations import CONFIG_DIR
from control_plane.query.components import BM25_FIELD_BOOSTS


@dataclass(frozen=True)
class ClinicalPlan:
    """The detected intents, the boosts to route with (empty: no routing), the BM25 field weights
    (facet_json raised for an intent at the configured granularities: facet_boost.py) and the sources
    an intent narrows the search to (empty: no narrowing)."""

    intents: tuple[DetectedIntent, ...] = ()
    boosts: tuple[Boost, ...] = ()
    bm25_fields: Mapping[str, float] = field(default_factory=lambda: dict(BM25_FIELD_BOOSTS))
    sources: tuple[str, ...] = ()
    topic: str | None = None
    """What the question is about (``topic_text``), when boosts are on and it names something: the
    text the dense and sparse encoders search with, so the records found (and routed) are those about
    the topic, not those that match the intent's words best; BM25 keeps the whole question."""

    many_records: ManyRecordsRule | None = None
    """How many records routing may lift sections in, and how topical each must be, when the question
    asks about many (it names its records in the plural, intents.yaml ``many_records``) and boosts are
    on; None: the settings' (a question about one record)."""

    def semantic_text(self, query: str) -> str:
        """The text the dense and sparse components search with."""
        return self.topic or query

    def declarations(self, sources: Iterable[Mapping[str, object]]) -> Declarations | None:
        """For a question about many records that names a topic, the topic's words (the record kinds it
        names in the plural left out: "cohorts" is not a topic) and the subjects of the records in
        ``sources`` (hits' ``_source``), by which routing judges which records are on the topic
        (record_subject.py); None otherwise (the hits are then not read)."""
        many = self.many_records
        if many is None or self.topic is None:
            return None
        words = specific_words(self.topic) - specific_words(" ".join(many.plurals))
        return Declarations(words, record_subjects(sources)) if words else None

    def section_routing(
        self, params: SectionRoutingSettings, fusion: FusionMethod | None = None
    ) -> SectionRoutingSettings:
        """The routing settings for this question: for one about many records, ``params`` widened to them
        (never narrowed), each judged by what it is about rather than by the asked section, at the
        topicality its ``fusion`` (``weighted`` or ``rrf``) asks for."""
        many = self.many_records
        if many is None:
            return params
        return params.model_copy(
            update={
                "max_documents": max(params.max_documents, many.max_documents),
                "min_topicality": min(params.min_topicality, many.topicality_for(fusion)),
                "topicality_outside_asked": True,
            }
        )


@lru_cache(maxsize=4)
def intent_config(path: str) -> IntentConfig:
    return load_intent_config(Path(path))


def intent_config_path(settings: Settings) -> Path:
    configured = Path(settings.search.intents_file)
    return configured if configured.is_absolute() else CONFIG_DIR / configured


def plan_clinical(
    query: str,
    config: IntentConfig,
    facets: FacetSettings,
    *,
    named_intents: Sequence[str] | None = None,
    boosts_on: bool = True,
    granularity: str = "chunk",
    sources_filtered: bool = False,
) -> ClinicalPlan:
    """Intents are always detected (reported and counted); boosts, the source restriction and the topic
    only when ``boosts_on``. ``named_intents``: the request's explicit intents (confidence 1, detection
    skipped; naming ``tabular`` routes tables at the manual factor). ``sources_filtered``: the request filters
    sources itself, so no intent narrows them."""
    detected = (
        intents_from_override(named_intents, config) if named_intents else detect_intents(query, config)
    )
    manual_tabular = bool(named_intents) and TABULAR_INTENT in (named_intents or [])
    boosts = plan_boosts(detected, config, manual_tabular=manual_tabular) if boosts_on else []
    sources = () if sources_filtered or not boosts_on else restricted_sources(detected, config)
    fields = bm25_field_boosts(detected, boosts_on, granularity, facets)
    topic = topic_text(query, detected) if boosts_on else None
    many = config.many_records if boosts_on and names_many_records(query, config.many_records) else None
    return ClinicalPlan(tuple(detected), tuple(boosts), fields, sources, topic, many)


def restricted_sources(detected: Sequence[DetectedIntent], config: IntentConfig) -> tuple[str, ...]:
    """The sources the detected intents are configured to keep (``restrict_to_sources``), sorted."""
    sources: set[str] = set()
    for intent in detected:
        rule = config.intents.get(intent.name)
        if rule is not None:
            sources.update(rule.restrict_to_sources)
    return tuple(sorted(sources))


def topic_text(query: str, intents: Sequence[DetectedIntent]) -> str | None:
    """The query without its intents' cue words — what it is about ("eligibility for breast cancer
    trials" -> "for breast cancer trials") — or None when nothing specific is left ("side effects of
    the treatment": only stop words and :data:`GENERIC_WORDS`), or no cue was found."""
    spans = sorted(span for intent in intents for span in intent.cue_spans)
    if not spans:
        return None
    kept: list[str] = []
    position = 0
    for start, end in spans:
        kept.append(query[position:start])
        position = max(position, end)
    kept.append(query[position:])
    topic = " ".join(" ".join(kept).split())
    return topic if specific_words(topic) else None
