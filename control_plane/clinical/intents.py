"""Clinical query intents from configuration (config/intents.yaml), and the boosts they earn.

Detection: each intent's phrases are matched as whole words, case-insensitively, after light stemming
(``highlights.light_stem``). Confidence = 1 - prod(1 - w) over the intent's matches, w being
``confidence.phrase`` (0.9) for a phrase of two or more words and ``confidence.cue`` (0.6) for one cue
word; a match lying inside a longer match of the same intent is not counted again. So one cue gives
0.6, two cues 0.84, a phrase 0.9, a phrase and a cue 0.96: more evidence, more confidence, never > 1.
A match lying inside one of the intent's ``ignore_within`` phrases is dropped: there the cue means
something else ("rate" in "heart rate", "safety" in "safety culture", "how many" in "how many
milligrams", which is dosage, not a count). Listing these is cheaper and keeps more recall than
deleting a cue that is right in most queries.

A terse question (at most ``terse_words`` words besides the records it names: "methods of NCT03418623",
"dose NCT01029262", "GRECCAR 2 trial results") is keywords, every word of it chosen: there a cue word
counts as a phrase. In a sentence a lone cue may be incidental; in three words it is what is asked.

Corpus cues (``corpus_cues``, a file `biohybrid intents cues` builds: clinical/corpus_cues.py): words
the corpus knows for an intent without anyone listing them, such as the harms its adverse-event tables
name ("nasopharyngitis", "neutropenia"). Each is one more cue word of its intent, matched like one.

A phrase may hold gaps, written ``...``: "how is ... given" matches "how is the study drug given" (at
most ``max_gap_words`` words in each gap). Clinicians put the topic inside the question ("does
mepolizumab help", "what is LJPC-501 given for"), so a phrase that must be contiguous misses it.

A boost is a factor (>= 1) for the chunks its filter matches. /v1/search applies it after fusion and
only inside the records the query is about (control_plane/clinical/section_routing.py), never to every
chunk of a kind.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Literal

import yaml
from pydantic import Field, PrivateAttr, ValidationError, field_validator

from control_plane.clinical.corpus_cues import CorpusCuesError, load_corpus_cues
from control_plane.clinical.labels import IntentHint
from control_plane.config.settings import describe_errors
from control_plane.config.strict import StrictSettings
from control_plane.errors import BiohybridError, ClientError
from control_plane.fusion.methods import FusionMethod
from control_plane.locations import CONFIG_DIR
from control_plane.query.named_records import words_besides_identifiers
from control_plane.words.atoms import ATOM, Atom, atom_positions, atoms, find_sequence

DEFAULT_INTENTS_FILE: Final = CONFIG_DIR / "intents.yaml"
TABULAR_INTENT: Final = "tabular"
INTENT_FIELD: Final = "intent_hint"
TABLE_FIELD: Final = "is_table"

TableRouting = Literal["none", "tables", "tables_and_targets"]


class IntentConfigError(BiohybridError, ValueError):
    """The intents file is missing or invalid; the message names the key."""


class UnknownIntentError(ClientError, ValueError):
    """An intent name that the configuration does not define; the message lists the valid ones."""


class IntentRule(StrictSettings):
    """One intent: its cue phrases, its boost factor and which chunks (``intent_hint``) it targets."""

    phrases: tuple[str, ...] = Field(min_length=1)
    ignore_within: tuple[str, ...] = Field(
        (), description="phrases in which this intent's cues mean something else; matches inside are dropped"
    )
    boost: float = Field(1.0, ge=1.0, description="never below 1: a boost never demotes")
    targets: tuple[IntentHint, ...] = ()
    restrict_to_sources: tuple[str, ...] = ()
    table_routing: TableRouting = "none"
    question_openings: tuple[str, ...] = Field(
        (),
        description="a question that opens with one of these words and holds no intent's phrase asks "
        "for this intent (one cue's confidence)",
    )

    @field_validator("phrases", "ignore_within")
    @classmethod
    def _phrases_have_words(cls, phrases: tuple[str, ...]) -> tuple[str, ...]:
        empty = [phrase for phrase in phrases if not all(atoms(part) for part in phrase.split(GAP))]
        if empty:
            raise ValueError(f"phrases without any word (or with an empty side of a '{GAP}' gap): {empty}")
        return phrases

    @field_validator("question_openings")
    @classmethod
    def _openings_case_folded(cls, openings: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(opening.lower() for opening in openings)


GAP: Final = "..."


class ConfidenceWeights(StrictSettings):
    phrase: float = Field(0.9, gt=0, le=1)
    cue: float = Field(0.6, gt=0, le=1)


class TableRoutingFactors(StrictSettings):
    per_confidence: float = Field(2.0, ge=0)
    manual_factor: float = Field(3.0, ge=1)


class ManyRecordsRule(StrictSettings):
    """A question that names its records in the plural ("eligibility for breast cancer trials",
    "complications ... across studies") asks about every record on its topic, not the few the fused
    ranking puts first: routing then lifts the asked section in up to ``max_documents`` records, down to
    ``min_topicality`` (records on a shared topic score close to, not at, the best)."""

    plurals: tuple[str, ...] = Field(
        min_length=1, description="plural record nouns, matched as whole words, unstemmed, case-folded"
    )
    max_documents: int = Field(ge=1, le=100)
    min_topicality: float = Field(
        ge=0.0,
        le=1.0,
        description="a record routes when its best chunk scores at least this share of the top",
    )
    min_topicality_by_fusion: dict[FusionMethod, float] = Field(
        default_factory=dict,
        description="min_topicality for one fusion: a share of the top means another thing under min-max "
        "(scores squeezed towards the top) than under RRF (reciprocal ranks)",
    )

    @field_validator("min_topicality_by_fusion")
    @classmethod
    def _shares(cls, shares: dict[str, float]) -> dict[str, float]:
        bad = {fusion: share for fusion, share in shares.items() if not 0.0 <= share <= 1.0}
        if bad:
            raise ValueError(f"shares must be within [0, 1], got {bad}")
        return shares

    def topicality_for(self, fusion: FusionMethod | None) -> float:
        """The least topicality for ``fusion`` (None: the default)."""
        if fusion is None:
            return self.min_topicality
        return self.min_topicality_by_fusion.get(fusion, self.min_topicality)


class IntentConfig(StrictSettings):
    version: Literal[1] = 1
    confidence: ConfidenceWeights = ConfidenceWeights()
    max_gap_words: int = Field(4, ge=1, description="words a '...' gap in a phrase may stand for")
    terse_words: int = Field(
        0,
        ge=0,
        description="a question of at most this many words besides the records it names is keywords: "
        "each cue word in it counts as a phrase (0: never)",
    )
    table_routing: TableRoutingFactors = TableRoutingFactors()
    intents: dict[str, IntentRule] = Field(min_length=1)
    many_records: ManyRecordsRule | None = None
    corpus_cues: str | None = Field(
        None,
        description="a corpus cues file (`biohybrid intents cues`), relative to the intents file: each "
        "word it lists for an intent is one more cue word of that intent (clinical/corpus_cues.py)",
    )
    _cue_keys: dict[str, frozenset[str]] = PrivateAttr(default_factory=dict)

    def cue_keys(self, intent: str) -> frozenset[str]:
        """The keys of the corpus cue words of ``intent`` (empty without a corpus cues file)."""
        return self._cue_keys.get(intent, frozenset())

    def with_cue_keys(self, keys: Mapping[str, frozenset[str]]) -> IntentConfig:
        """A copy whose intents also have these corpus cue words (keys, as :func:`atoms` reads words)."""
        unknown = sorted(set(keys) - set(self.intents))
        if unknown:
            raise IntentConfigError(
                f"corpus cues for unknown intents {unknown}; intents: {sorted(self.intents)}"
            )
        copy = self.model_copy()
        copy._cue_keys = {name: frozenset(words) for name, words in keys.items()}
        return copy

    @field_validator("intents")
    @classmethod
    def _names(cls, intents: dict[str, IntentRule]) -> dict[str, IntentRule]:
        bad = [name for name in intents if not name.isidentifier() or name != name.lower()]
        if bad:
            raise ValueError(f"intent names must be lower-case identifiers, got {bad}")
        return intents


@dataclass(frozen=True)
class DetectedIntent:
    """An intent found in (or forced on) a query; ``matched`` is the query text that revealed it."""

    name: str
    confidence: float
    matched: tuple[str, ...] = ()
    cue_spans: tuple[tuple[int, int], ...] = ()
    """Character spans of the cue words themselves (a gapped phrase's words, not what its gaps hold):
    what is left of the query outside them is its topic (planning.topic_text)."""


@dataclass(frozen=True)
class Boost:
    """Chunks whose ``field`` holds one of ``values`` earn ``factor`` (> 1); routing lifts such a chunk
    of a topical record by weight x (factor - 1) x topicality (control_plane/clinical/section_routing.py)."""

    field: str
    values: tuple[str | bool, ...]
    factor: float
    reason: str
    intent: str
    tables_only: bool = False
    """Only table chunks (``is_table: true``) whose ``field`` holds one of ``values`` match: table
    routing for an intent lifts its own kind of table, never every table."""

    @property
    def routes_tables(self) -> bool:
        return routes_tables(self.field, self.tables_only)


def routes_tables(field: str, tables_only: bool) -> bool:
    """Whether a boost on ``field`` is table routing (reported apart from section boosts)."""
    return field == TABLE_FIELD or tables_only


def parse_intent_config(data: Any, source: str = "intents.yaml") -> IntentConfig:
    """Validate loaded YAML; errors name the dotted key (``intents.eligibility.boost``)."""
    try:
        return IntentConfig.model_validate(data)
    except ValidationError as exc:
        raise IntentConfigError(f"invalid intents configuration {source}: {describe_errors(exc)}") from None


def load_intent_config(path: Path = DEFAULT_INTENTS_FILE) -> IntentConfig:
    """Read and validate an intents file (settings ``search.intents_file``)."""
    if not path.is_file():
        raise IntentConfigError(f"intents file not found: {path} (set search.intents_file)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise IntentConfigError(f"intents file {path} is not valid YAML: {exc}") from None
    config = parse_intent_config(data, str(path))
    if config.corpus_cues is None:
        return config
    try:
        cues = load_corpus_cues(path.parent / config.corpus_cues)
    except CorpusCuesError as exc:
        raise IntentConfigError(f"{path}: corpus_cues: {exc}") from None
    return config.with_cue_keys({name: cues.keys(name) for name in cues.intents})


@lru_cache(maxsize=4096)
def _phrase_keys(phrase: str) -> tuple[tuple[str, ...], ...]:
    """The keys of each gap-separated part of a phrase (one part when it has no gap)."""
    return tuple(tuple(atom.key for atom in atoms(part)) for part in phrase.split(GAP))


Span = tuple[int, int]


def find_phrase(
    query_atoms: Sequence[Atom],
    parts: Sequence[Sequence[str]],
    max_gap_words: int,
    positions: dict[str, list[int]],
) -> list[tuple[Span, ...]]:
    """Each match of a phrase: the character span of each of its parts. The parts occur in order, each
    contiguous, with at most ``max_gap_words`` words between two parts (from each start, the nearest
    next part)."""
    matches: list[tuple[Span, ...]] = [
        (span,) for span in find_sequence(query_atoms, parts[0], positions=positions)
    ]
    if not matches or len(parts) == 1:  # most phrases: no gap, and most are not in the question at all
        return matches
    index_of_start = {atom.start: index for index, atom in enumerate(query_atoms)}
    index_of_end = {atom.end: index for index, atom in enumerate(query_atoms)}
    for part in parts[1:]:
        following = find_sequence(query_atoms, part, positions=positions)
        chained: list[tuple[Span, ...]] = []
        for match in matches:
            last = index_of_end[match[-1][1]]
            near = [s for s in following if last < index_of_start[s[0]] <= last + 1 + max_gap_words]
            if near:
                chained.append((*match, min(near)))
        matches = chained
    return matches


@dataclass(frozen=True)
class _Match:
    weight: float
    parts: tuple[Span, ...]


def is_terse(query: str, terse_words: int) -> bool:
    """Whether the question is keywords: at most ``terse_words`` words besides the records it names."""
    return 0 < len(words_besides_identifiers(query)) <= terse_words


def _matches(
    query_atoms: Sequence[Atom],
    rule: IntentRule,
    config: IntentConfig,
    terse: bool = False,
    cue_keys: frozenset[str] = frozenset(),
) -> dict[Span, _Match]:
    """Character span -> each phrase occurrence (its weight and the spans of its parts), without
    occurrences inside a longer one or inside an occurrence of an ``ignore_within`` phrase. A word whose
    key is one of ``cue_keys`` (the intent's corpus cues) is one more cue word. In a ``terse`` question a
    cue word weighs as a phrase."""
    positions = atom_positions(query_atoms)
    weights, gap = config.confidence, config.max_gap_words
    ignored = [
        _whole(parts)
        for phrase in rule.ignore_within
        for parts in find_phrase(query_atoms, _phrase_keys(phrase), gap, positions)
    ]
    found: dict[Span, _Match] = {}
    for phrase in rule.phrases:
        keys = _phrase_keys(phrase)
        occurrences = find_phrase(query_atoms, keys, gap, positions)
        if not occurrences:
            continue
        weight = weights.phrase if terse or sum(len(part) for part in keys) > 1 else weights.cue
        for parts in occurrences:
            span = _whole(parts)
            if any(_inside(span, other) for other in ignored):
                continue
            if span not in found or weight > found[span].weight:
                found[span] = _Match(weight, parts)
    cue_weight = weights.phrase if terse else weights.cue
    for atom in query_atoms:
        span = (atom.start, atom.end)
        if atom.key in cue_keys and span not in found and not any(_inside(span, o) for o in ignored):
            found[span] = _Match(cue_weight, (span,))
    return {
        span: match
        for span, match in found.items()
        if not any(other != span and _inside(span, other) for other in found)
    }


def _whole(parts: Sequence[Span]) -> Span:
    return parts[0][0], parts[-1][1]


def _inside(span: tuple[int, int], other: tuple[int, int]) -> bool:
    return other[0] <= span[0] and span[1] <= other[1]


def detect_intents(query: str, config: IntentConfig) -> list[DetectedIntent]:
    """The intents whose phrases occur in ``query``, most confident first (configuration order on
    ties); [] when no phrase occurs."""
    query_atoms = atoms(query)
    terse = is_terse(query, config.terse_words)
    detected: list[DetectedIntent] = []
    for name, rule in config.intents.items():
        found = _matches(query_atoms, rule, config, terse, config.cue_keys(name))
        if not found:
            continue
        confidence = 1.0 - math.prod(1.0 - match.weight for match in found.values())
        matched = tuple(dict.fromkeys(query[start:end] for start, end in sorted(found)))
        cues = tuple(sorted(part for match in found.values() for part in match.parts))
        detected.append(DetectedIntent(name, min(confidence, 1.0), matched, cues))
    if not detected and query_atoms:
        return _by_opening(query, query_atoms[0], config)
    return sorted(detected, key=lambda intent: -intent.confidence)


def _by_opening(query: str, first: Atom, config: IntentConfig) -> list[DetectedIntent]:
    """The first intent whose ``question_openings`` hold the question's first word, as one cue; []
    when none does. Only asked when no phrase occurs."""
    if first.start != len(query) - len(query.lstrip()):
        return []
    word = query[first.start : first.end]
    for name, rule in config.intents.items():
        if word.lower() in rule.question_openings:
            return [DetectedIntent(name, config.confidence.cue, (word,), ((first.start, first.end),))]
    return []


def names_many_records(query: str, rule: ManyRecordsRule | None) -> bool:
    """Whether the question names its records in the plural. Unstemmed on purpose: the light stem
    gives "trial" and "trials" one key, and only the plural asks about many."""
    if rule is None:
        return False
    words = {word.casefold() for word in ATOM.findall(query)}
    return any(plural in words for plural in rule.plurals)


def intents_from_override(names: Iterable[str], config: IntentConfig) -> list[DetectedIntent]:
    """A request's explicit intents, each at confidence 1.0 (duplicates dropped)."""
    chosen = list(dict.fromkeys(names))
    unknown = [name for name in chosen if name not in config.intents]
    if unknown:
        raise UnknownIntentError(f"unknown intent(s) {unknown}; valid intents: {sorted(config.intents)}")
    return [DetectedIntent(name=name, confidence=1.0) for name in chosen]


def plan_boosts(
    intents: Sequence[DetectedIntent], config: IntentConfig, manual_tabular: bool = False
) -> list[Boost]:
    """The boosts for these intents. A boost never demotes: an intent's factor is boost x confidence
    raised to at least 1.0, and a factor of 1.0 is no boost, so it is left out.

    Table routing gives tables 1 + per_confidence x confidence, and only tables of the asked kind: an
    intent with ``tables_and_targets`` lifts its own target chunks, tables among them, by that factor
    (an adverse-event question lifts adverse-event tables, not outcome tables); an intent with
    ``tables`` (tabular: a question after numbers) lifts the tables whose ``intent_hint`` is a target
    of the other intents found with it ("how many patients had adverse events": adverse-event
    tables), or every table when it comes alone. ``manual_tabular`` (the request named the tabular
    intent) gives those tables at least ``manual_factor``. Boosts on the same chunks do not stack: the
    largest factor wins. No intent, no boost."""
    candidates: list[Boost] = []
    asked_tables = tuple(
        dict.fromkeys(t for i in intents if i.name in config.intents for t in config.intents[i.name].targets)
    )
    for intent in intents:
        rule = config.intents.get(intent.name)
        if rule is None:
            raise UnknownIntentError(
                f"unknown intent {intent.name!r}; valid intents: {sorted(config.intents)}"
            )
        c = intent.confidence
        if rule.targets and rule.boost * c > 1.0:
            reason = f"{intent.name} intent: boost {rule.boost:g} x confidence {c:.2f}"
            candidates.append(Boost(INTENT_FIELD, rule.targets, rule.boost * c, reason, intent.name))
        if rule.table_routing != "none":
            factor = 1.0 + config.table_routing.per_confidence * c
            reason = f"table routing for {intent.name}: 1 + {config.table_routing.per_confidence:g} x {c:.2f}"
            if rule.table_routing == "tables_and_targets" and rule.targets:
                candidates.append(Boost(INTENT_FIELD, rule.targets, factor, reason, intent.name))
                candidates.append(Boost(INTENT_FIELD, rule.targets, factor, reason, intent.name, True))
            else:
                candidates.append(_tables(asked_tables, factor, reason, intent.name))
    if manual_tabular:
        factor = config.table_routing.manual_factor
        candidates.append(_tables(asked_tables, factor, "manual tabular intent", TABULAR_INTENT))
    return _strongest(candidates)


def _tables(kinds: tuple[str, ...], factor: float, reason: str, intent: str) -> Boost:
    """Table routing to the tables of ``kinds`` (the intents' targets), or to every table (none)."""
    if kinds:
        return Boost(INTENT_FIELD, kinds, factor, f"{reason} (tables of {', '.join(kinds)})", intent, True)
    return Boost(TABLE_FIELD, (True,), factor, reason, intent)


def _strongest(candidates: Sequence[Boost]) -> list[Boost]:
    """One boost per (field, values, tables_only): the largest factor, in order of first appearance."""
    best: dict[tuple[str, tuple[str | bool, ...], bool], Boost] = {}
    for boost in candidates:
        key = (boost.field, boost.values, boost.tables_only)
        if key not in best or boost.factor > best[key].factor:
            best[key] = boost
    return [boost for boost in best.values() if boost.factor > 1.0]


def boost_filter(boost: Boost) -> dict[str, Any]:
    """The filter a chunk must match to take this boost (one value: term; several: terms; a table
    boost of some kinds: that and ``is_table: true``)."""
    clause: dict[str, Any] = (
        {"term": {boost.field: boost.values[0]}}
        if len(boost.values) == 1
        else {"terms": {boost.field: list(boost.values)}}
    )
    if boost.tables_only:
        return {"bool": {"filter": [clause, {"term": {TABLE_FIELD: True}}]}}
    return clause
