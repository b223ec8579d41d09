"""Cue words the corpus itself knows: the words of the harms its records' adverse-event tables list.

A clinician asks "upper respiratory infections and nasopharyngitis certolizumab versus placebo" or
"pruritus and nausea on the study drug versus placebo" without saying "adverse" or "side effect":
the harm is named, not the intent. Phrase lists cannot enumerate every harm; the corpus can. Each
ClinicalTrials.gov record that reports results lists its adverse events by name (MedDRA terms:
"Nasopharyngitis", "Neutrophil count decreased", "Febrile neutropenia"). A word of those names is a cue
for adverse events when

* at least ``min_records`` records list it (one record's odd term is not a vocabulary),
* the corpus's adverse-event chunks hold it far more often than its other chunks (``log_ratio`` of the
  two shares at least ``min_log_ratio``: "decreased", "increased", "pain", "grade" are everywhere), and
* no record is *about* it (it is not a word of any record's title, official title, conditions or
  keywords: "headache" names a trial's topic as often as a harm, "infection" a disease studied),
  whichever the spelling (``spelling_key``: MedDRA's "leukaemia" is the title's "leukemia"), and
* MEDLINE's indexers do not name it mostly as a subject: of the MeSH headings holding the word (at
  least ``min_headings`` of them), at least ``min_caused_share`` carry a qualifier saying the condition
  was caused (chemically induced, complications, etiology). "Nausea" is caused in 9 of 9 headings,
  "neutropenia" 8 of 11; "asthma" 42 of 159, "influenza" 4 of 125, "platelet" 4 of 315: those are
  diseases studied and things measured, and a question naming them is about them.

``biohybrid intents cues`` builds the file (``control_plane/config/corpus_cues.json``) from the corpus
sources; intents.yaml's ``corpus_cues`` names it, and intent detection treats each listed word as one
more cue word of its intent (control_plane/clinical/intents.py). The selection is pure and lives here;
reading the corpus is ingestion/corpus_terms.py's.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

from control_plane.errors import BiohybridError
from control_plane.words.atoms import ENGLISH_STOP_WORDS, atoms

FORMAT_VERSION: Final = 1
MIN_WORD_LENGTH: Final = 3


class CorpusCuesError(BiohybridError, ValueError):
    """A corpus cues file that is missing or malformed; the message names the file and the fix."""


def log_ratio(
    inside: int, inside_total: int, outside: int, outside_total: int, smoothing: float = 1.0
) -> float:
    """ln of (share of the target chunks holding a word) / (share of the other chunks holding it), each
    share add-``smoothing`` smoothed: (inside + s) / (inside_total + 2s) over (outside + s) /
    (outside_total + 2s). 0: as common in both; ln 4 ~ 1.39: four times as common among the targets."""
    return math.log((inside + smoothing) / (inside_total + 2 * smoothing)) - math.log(
        (outside + smoothing) / (outside_total + 2 * smoothing)
    )


def word_keys(text: str) -> dict[str, str]:
    """Key -> first surface form of each word that can be a cue: not a stop word, not a number, at least
    :data:`MIN_WORD_LENGTH` letters."""
    found: dict[str, str] = {}
    for atom in atoms(text):
        word = text[atom.start : atom.end].lower()
        if word in ENGLISH_STOP_WORDS or atom.key.isdigit() or len(atom.key) < MIN_WORD_LENGTH:
            continue
        found.setdefault(atom.key, word)
    return found


CAUSED_QUALIFIERS: Final = ("chemically induced", "complications", "etiology")


def caused_share(caused: int, total: int) -> float:
    """The share of headings that say the condition was caused, add-one smoothed: (caused + 1) /
    (total + 2); 0.5 with no evidence."""
    return (caused + 1) / (total + 2)


def spelling_key(key: str) -> str:
    """A key with British ligature spellings folded to American ("anaemia" -> "anemia", "oedema" ->
    "edema", "haemorrhag" -> "hemorrhag"), for comparing a term's word with the corpus's topics."""
    return key.replace("ae", "e").replace("oe", "e")


@dataclass(frozen=True)
class CueSelection:
    """The thresholds a word must pass (module docstring)."""

    min_records: int = 2
    min_log_ratio: float = 2.5
    smoothing: float = 1.0
    min_headings: int = 5
    min_caused_share: float = 0.3


DEFAULT_SELECTION: Final = CueSelection()


@dataclass(frozen=True)
class Heading:
    """One MeSH heading of a MEDLINE citation: its descriptor and whether a qualifier says the
    condition was caused (:data:`CAUSED_QUALIFIERS`)."""

    descriptor: str
    caused: bool


@dataclass(frozen=True)
class CueWord:
    """One selected word: its key (as intent matching reads words), how it was written, and why."""

    key: str
    word: str
    records: int
    log_ratio: float


@dataclass(frozen=True)
class Chunk:
    """What selection needs of one chunk: whether it is one of the intent's targets, and its text."""

    is_target: bool
    text: str


def select_cues(
    terms_by_record: Mapping[str, Iterable[str]],
    chunks: Iterable[Chunk],
    topic_texts: Iterable[str],
    headings: Iterable[Heading] = (),
    selection: CueSelection = DEFAULT_SELECTION,
) -> list[CueWord]:
    """The words of the records' listed terms (``record id -> term names``) that pass ``selection``
    against the ``chunks`` (target or not), are in none of the ``topic_texts`` and are not mostly a
    subject in the MeSH ``headings``, sorted by key."""
    records: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for terms in terms_by_record.values():
        keys: dict[str, str] = {}
        for term in terms:
            for key, word in word_keys(term).items():
                keys.setdefault(key, word)
        records.update(keys.keys())
        for key, word in keys.items():
            surface.setdefault(key, word)
    inside: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    inside_total = outside_total = 0
    for chunk in chunks:
        keys_in_chunk = {atom.key for atom in atoms(chunk.text)}
        if chunk.is_target:
            inside.update(keys_in_chunk)
            inside_total += 1
        else:
            outside.update(keys_in_chunk)
            outside_total += 1
    topics = {spelling_key(atom.key) for text in topic_texts for atom in atoms(text)}
    named: Counter[str] = Counter()
    caused: Counter[str] = Counter()
    for heading in headings:
        keys_in_heading = {atom.key for atom in atoms(heading.descriptor)} & records.keys()
        named.update(keys_in_heading)
        if heading.caused:
            caused.update(keys_in_heading)
    selected: list[CueWord] = []
    for key in sorted(records):
        if records[key] < selection.min_records or spelling_key(key) in topics:
            continue
        if named[key] >= selection.min_headings and (
            caused_share(caused[key], named[key]) < selection.min_caused_share
        ):
            continue
        ratio = log_ratio(inside[key], inside_total, outside[key], outside_total, selection.smoothing)
        if ratio >= selection.min_log_ratio:
            selected.append(CueWord(key, surface[key], records[key], round(ratio, 4)))
    return selected


@dataclass(frozen=True)
class CorpusCues:
    """The file's content: for each intent, its cue words; and how they were built."""

    intents: Mapping[str, tuple[CueWord, ...]]
    sources: tuple[str, ...] = ()
    heading_sources: tuple[str, ...] = ()
    selection: CueSelection = DEFAULT_SELECTION
    counts: Mapping[str, int] | None = None

    def keys(self, intent: str) -> frozenset[str]:
        return frozenset(cue.key for cue in self.intents.get(intent, ()))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "built_by": " ".join(
                [
                    "biohybrid intents cues",
                    *self.sources,
                    *(f"--mesh {name}" for name in self.heading_sources),
                ]
            ),
            "sources": list(self.sources),
            "heading_sources": list(self.heading_sources),
            "selection": asdict(self.selection),
            "counts": dict(self.counts or {}),
            "intents": {
                name: {
                    cue.key: {"word": cue.word, "records": cue.records, "log_ratio": cue.log_ratio}
                    for cue in cues
                }
                for name, cues in self.intents.items()
            },
        }


def dump_corpus_cues(cues: CorpusCues, path: Path) -> None:
    path.write_text(json.dumps(cues.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_corpus_cues(path: Path) -> CorpusCues:
    """Read a cues file; a missing or malformed one is a :class:`CorpusCuesError` naming the command that
    builds it."""
    fix = "build it with `biohybrid intents cues` or remove corpus_cues from the intents file"
    if not path.is_file():
        raise CorpusCuesError(f"corpus cues file not found: {path} ({fix})")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != FORMAT_VERSION:
            raise ValueError(f"version {data.get('version')!r}, expected {FORMAT_VERSION}")
        selection = CueSelection(**data["selection"])
        intents = {
            str(name): tuple(
                CueWord(str(key), str(cue["word"]), int(cue["records"]), float(cue["log_ratio"]))
                for key, cue in words.items()
            )
            for name, words in data["intents"].items()
        }
        return CorpusCues(
            intents,
            tuple(data.get("sources", ())),
            tuple(data.get("heading_sources", ())),
            selection,
            dict(data.get("counts", {})),
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CorpusCuesError(f"corpus cues file {path} is malformed ({exc}); {fix}") from None
