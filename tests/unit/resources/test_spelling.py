"""The British and American spellings the chunk analyzer folds (resources/spelling.py): the list is read
strictly, becomes one synonym rule per pair, and sits after the stemmer in the analyzer every text field
and every query of it goes through."""

from __future__ import annotations

import pytest

from control_plane.config.settings import load_settings
from control_plane.resources.catalog import load_resources
from control_plane.resources.spelling import read_variants, spelling_rules, synonym_rules


def test_pairs_are_read_with_comments_and_blank_lines_skipped() -> None:
    text = "# a comment\n\noedema\tedema\nfoetus\tfetus\n"
    assert read_variants(text) == (("oedema", "edema"), ("foetus", "fetus"))
    assert synonym_rules(read_variants(text)) == ["oedema => edema", "foetus => fetus"]


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("oedema edema\n", "line 1: expected british<TAB>american"),
        ("Oedema\tedema\n", "lower-case letters"),
        ("oedema\tedema\tedoema\n", "line 1"),
        ("edema\tedema\n", "same word in both spellings"),
        ("oedema\tedema\n# x\noedema\toedem\n", "line 3: 'oedema' is listed twice"),
        ("ae-tiology\tetiology\n", "lower-case letters"),
    ],
)
def test_a_malformed_list_is_refused_naming_the_line(text: str, complaint: str) -> None:
    with pytest.raises(ValueError, match=complaint):
        read_variants(text)


def test_the_maintained_list_holds_the_spellings_the_demo_corpus_splits() -> None:
    rules = spelling_rules()
    for rule in ("anaemia => anemia", "haemoglobin => hemoglobin", "oedema => edema", "tumour => tumor"):
        assert rule in rules
    assert "paediatric => pediatric" in rules and "randomised => randomized" in rules
    assert not [rule for rule in rules if rule.startswith("analyse ")]  # stems as "analyses" does


def test_the_chunk_analyzer_folds_after_stemming_with_the_maintained_rules() -> None:
    [template] = [r for r in load_resources(load_settings(environ={})) if r.name == "chunk-mappings"]
    analysis = template.body["template"]["settings"]["index"]["analysis"]
    chain = analysis["analyzer"]["biomedical_english"]["filter"]
    assert chain[-2:] == ["porter_stem", "biomedical_spelling"]
    assert analysis["filter"]["biomedical_spelling"] == {"type": "synonym", "synonyms": spelling_rules()}
