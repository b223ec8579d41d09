"""Every route note's wording, by hand: what the pipelines write on a hit and what the console shows for
a /v1/search hit."""

from __future__ import annotations

import pytest

from control_plane.clinical.route_notes import (
    absent_note,
    boost_note,
    intents_label,
    lifted_note,
    not_lifted_note,
    unboosted_note,
)


def test_the_intents_open_every_note() -> None:
    assert intents_label(["eligibility", "adverse_events"]) == "eligibility,adverse_events"
    assert intents_label([]) == "none"


@pytest.mark.parametrize(
    ("factor", "note"),
    [(1.5, "intents=ae; lifted x1.50"), (1.0, "intents=ae; not lifted"), (1.004, "intents=ae; lifted x1.00")],
)
def test_a_pipeline_hit_says_the_factor_it_was_lifted_by(factor: float, note: str) -> None:
    assert lifted_note("ae", factor) == note
    assert not_lifted_note("ae") == "intents=ae; not lifted"


def test_a_question_whose_records_are_absent_routes_nothing() -> None:
    assert absent_note("none", ["NCT01234567", "PMID 1"]) == (
        "intents=none; not routed: no record here carries NCT01234567, PMID 1"
    )


@pytest.mark.parametrize(
    ("factor", "fetched", "note"),
    [
        (1.8, False, "intents=ae; section boost x1.80"),
        (1.0, False, "intents=ae; no section boost"),
        (1.8, True, "intents=ae; section boost x1.80; fetched by routing (no component found it)"),
    ],
)
def test_a_search_hit_says_its_sections_boost_and_whether_routing_fetched_it(
    factor: float, fetched: bool, note: str
) -> None:
    assert boost_note("ae", factor, fetched) == note


def test_a_search_hit_routing_had_nothing_for() -> None:
    assert unboosted_note("ae", boosts_on=False) == "intents=ae; boosts off"
    assert unboosted_note("none", boosts_on=True) == "intents=none; no boost"
