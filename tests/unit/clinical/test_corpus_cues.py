"""Corpus cues: each formula with hand-computed values, the selection rules on a toy corpus, the file's
round trip and its errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from control_plane.clinical.corpus_cues import (
    Chunk,
    CorpusCues,
    CorpusCuesError,
    CueSelection,
    CueWord,
    Heading,
    caused_share,
    dump_corpus_cues,
    load_corpus_cues,
    log_ratio,
    select_cues,
    spelling_key,
    word_keys,
)


def test_log_ratio_compares_the_two_smoothed_shares() -> None:
    # (3 + 1) / (8 + 2) = 0.4 among the targets; (1 + 1) / (98 + 2) = 0.02 elsewhere: ln 20
    assert log_ratio(3, 8, 1, 98) == pytest.approx(math.log(20))
    # as common in both: 0
    assert log_ratio(4, 10, 4, 10) == pytest.approx(0.0)
    # absent from the targets, everywhere else: negative
    assert log_ratio(0, 10, 10, 10) == pytest.approx(math.log((1 / 12) / (11 / 12)))


def test_caused_share_is_add_one_smoothed_and_half_without_evidence() -> None:
    assert caused_share(9, 9) == pytest.approx(10 / 11)
    assert caused_share(4, 125) == pytest.approx(5 / 127)
    assert caused_share(0, 0) == 0.5


def test_spelling_key_folds_british_ligatures() -> None:
    assert spelling_key("anaemia") == "anemia"
    assert spelling_key("oedema") == "edema"
    assert spelling_key("haemorrhag") == "hemorrhag"
    assert spelling_key("rash") == "rash"


def test_word_keys_skip_stop_words_numbers_and_short_words() -> None:
    # keys are stemmed as intent matching reads words; the value is the word as written
    assert word_keys("Rash of the skin, grade 3 AE") == {"rash": "rash", "skin": "skin", "grad": "grade"}


def _select(**changes: object) -> list[str]:
    terms = {
        "NCT1": ["Nasopharyngitis", "Headache", "Neutrophil count decreased", "Oedema peripheral"],
        "NCT2": ["Nasopharyngitis", "Headache", "Neutrophil count decreased", "Oedema peripheral"],
        "NCT3": ["Tremor"],
    }
    chunks = [
        Chunk(True, "Nasopharyngitis Headache Neutrophil count decreased Oedema Tremor"),
        Chunk(True, "Nasopharyngitis Headache decreased Tremor Neutrophil"),
        *(Chunk(False, "patients decreased count peripheral") for _ in range(20)),
    ]
    topics = ["Headache in adolescents", "Peripheral edema after surgery"]
    headings = [Heading("Neutrophils", False)] * 6 + [Heading("Nasopharyngitis", True)] * 5
    arguments: dict[str, object] = {"headings": headings, "selection": CueSelection()} | changes
    return [cue.word for cue in select_cues(terms, chunks, topics, **arguments)]  # type: ignore[arg-type]


def test_a_cue_is_a_listed_harm_word_of_two_records_rare_elsewhere_and_no_records_topic() -> None:
    # headache: a record's topic; oedema: "edema" is, whatever the spelling; count, decreased,
    # peripheral: as common outside the adverse-event chunks; tremor: one record lists it;
    # neutrophil: MEDLINE names it 6 times, never caused (1/8 < 0.3)
    assert _select() == ["nasopharyngitis"]


def test_each_threshold_is_what_it_says() -> None:
    assert _select(selection=CueSelection(min_records=1)) == ["nasopharyngitis", "tremor"]
    assert "neutrophil" in _select(headings=[])
    assert "neutrophil" in _select(selection=CueSelection(min_headings=7))
    assert _select(selection=CueSelection(min_log_ratio=10.0)) == []


def test_the_file_round_trips_and_records_how_it_was_built(tmp_path: Path) -> None:
    cues = CorpusCues(
        {"adverse_events": (CueWord("rash", "rash", 8, 3.2),)},
        ("ctgov", "pmc"),
        ("medline",),
        CueSelection(),
        {"documents": 2},
    )
    path = tmp_path / "cues.json"
    dump_corpus_cues(cues, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["built_by"] == "biohybrid intents cues ctgov pmc --mesh medline"
    loaded = load_corpus_cues(path)
    assert loaded == cues
    assert loaded.keys("adverse_events") == {"rash"}
    assert loaded.keys("dosage") == frozenset()


def test_a_missing_or_malformed_file_names_the_command_that_builds_it(tmp_path: Path) -> None:
    with pytest.raises(CorpusCuesError, match=r"not found.*biohybrid intents cues"):
        load_corpus_cues(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "selection": {}, "intents": {"adverse_events": {"rash": {}}}}')
    with pytest.raises(CorpusCuesError, match=r"malformed.*biohybrid intents cues"):
        load_corpus_cues(bad)
    bad.write_text('{"version": 2}')
    with pytest.raises(CorpusCuesError, match="version 2"):
        load_corpus_cues(bad)
