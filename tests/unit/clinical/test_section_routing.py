"""Section routing: hand-computed routed scores, topicality gating, fetched sections, order ties."""

from __future__ import annotations

import pytest

from control_plane.clinical.intents import Boost
from control_plane.clinical.record_subject import Declarations
from control_plane.clinical.section_routing import (
    Candidate,
    route_factor,
    routed_order,
    routed_scores,
    sink_near_empty,
    topical_documents,
    topicality,
)
from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.search.results import ChunkResult
from control_plane.search.section_routing import route_chunks
from control_plane.search.sections import SECTIONS_PER_DOCUMENT, section_query
from control_plane.search.spec import Filters

ELIGIBILITY = Boost("intent_hint", ("eligibility",), 2.7, "eligibility 3.0 x 0.90", "eligibility")
TABLES = Boost("is_table", (True,), 2.2, "table routing", "tabular")
PARAMS = SectionRoutingSettings(
    weight=0.5, min_topicality=0.5, max_documents=2, depth=50, fetch_sections=True
)

# Trial A is what the query is about (best 0.8); B scores 0.6 at best (topicality 0.75); C 0.2 (0.25).
FUSED = [
    Candidate("A:0", "A", 0.8, None, False),
    Candidate("B:0", "B", 0.6, None, False),
    Candidate("A:1", "A", 0.4, "eligibility", False),
    Candidate("C:0", "C", 0.2, "eligibility", False),
    Candidate("B:1", "B", 0.1, "eligibility", True),
]


def test_topicality_is_each_documents_best_score_over_the_top_score() -> None:
    assert topicality(FUSED) == pytest.approx({"A": 1.0, "B": 0.75, "C": 0.25})
    assert topicality([Candidate("x", "X", 0.0, None, False)]) == {}


def test_topical_documents_keep_the_most_topical_above_the_threshold() -> None:
    assert topical_documents(FUSED, PARAMS) == pytest.approx({"A": 1.0, "B": 0.75})
    one = PARAMS.model_copy(update={"max_documents": 1})
    assert topical_documents(FUSED, one) == {"A": 1.0}
    strict = PARAMS.model_copy(update={"min_topicality": 0.8})
    assert topical_documents(FUSED, strict) == {"A": 1.0}


def test_outside_the_asked_section_a_record_is_judged_by_what_it_is_about() -> None:
    """C's best chunk is its eligibility section (an exclusion naming the topic, say): judged outside the
    asked section it has no chunk left and is not topical; A stays whole, B keeps its 0.75. The top
    score (0.8) stays the yardstick."""
    outside = PARAMS.model_copy(
        update={"topicality_outside_asked": True, "min_topicality": 0.2, "max_documents": 8}
    )
    inside = PARAMS.model_copy(update={"min_topicality": 0.2, "max_documents": 8})
    assert topical_documents(FUSED, inside, [ELIGIBILITY]) == pytest.approx({"A": 1.0, "B": 0.75, "C": 0.25})
    assert topical_documents(FUSED, outside, [ELIGIBILITY]) == pytest.approx({"A": 1.0, "B": 0.75})
    scores = routed_scores(FUSED, [ELIGIBILITY], outside)
    assert scores["C:0"] == pytest.approx(0.2 / 0.8)  # not lifted
    assert scores["A:1"] == pytest.approx(0.4 / 0.8 + 0.5 * (2.7 - 1.0) * 1.0)


def test_a_question_about_many_records_lifts_the_records_declaring_its_topic() -> None:
    """ "eligibility for breast cancer trials": B and D declare breast cancer (D's only chunk in the
    window is its criteria, so the fused ranking alone would not find it) come first at topicality 1;
    the others are judged as before: A (the best chunk) 1.0, E 0.625, C not topical (only its criteria
    in the window)."""
    many = PARAMS.model_copy(
        update={"topicality_outside_asked": True, "min_topicality": 0.2, "max_documents": 8}
    )
    fused = [
        *FUSED,
        Candidate("D:0", "D", 0.3, "eligibility", False),
        Candidate("E:0", "E", 0.5, None, False),
    ]
    subjects = {
        "A": frozenset({"diabet", "cancer", "cohort"}),
        "B": frozenset({"breast", "cancer", "neoplasm"}),
        "D": frozenset({"tripl", "negativ", "breast", "cancer"}),
    }
    declarations = Declarations(frozenset({"breast", "cancer"}), subjects)
    topical = topical_documents(fused, many, [ELIGIBILITY], declarations)
    assert list(topical) == ["B", "D", "A", "E"]  # declaring records first, by their best chunk (0.6, 0.3)
    assert topical == pytest.approx({"B": 1.0, "D": 1.0, "A": 1.0, "E": 0.625})
    # routed: lift = weight 0.5 x (2.7 - 1) x topicality
    scores = routed_scores(fused, [ELIGIBILITY], many, topical=topical)
    assert scores["D:0"] == pytest.approx(0.3 / 0.8 + 0.85)
    assert scores["B:1"] == pytest.approx(0.1 / 0.8 + 0.85)
    assert scores["A:1"] == pytest.approx(0.4 / 0.8 + 0.85)
    assert scores["C:0"] == pytest.approx(0.25)
    # nobody declares the topic: the fused judgement alone, as without declarations
    nobody = Declarations(frozenset({"melanoma"}), subjects)
    assert topical_documents(fused, many, [ELIGIBILITY], nobody) == topical_documents(
        fused, many, [ELIGIBILITY]
    )


def test_route_factor_is_the_largest_matching_boost() -> None:
    assert route_factor(FUSED[4], [ELIGIBILITY, TABLES]) == 2.7
    assert route_factor(FUSED[0], [ELIGIBILITY, TABLES]) == 1.0


def test_routed_scores_lift_sections_by_topicality() -> None:
    scores = routed_scores(FUSED, [ELIGIBILITY], PARAMS)
    # A:1: 0.4/0.8 + 0.5 x 1.7 x 1.0 = 1.35; B:1: 0.1/0.8 + 0.5 x 1.7 x 0.75 = 0.7625;
    # C:0 is eligibility too but C is not topical: it keeps 0.2/0.8.
    assert scores == pytest.approx({"A:0": 1.0, "B:0": 0.75, "A:1": 1.35, "C:0": 0.25, "B:1": 0.7625})
    assert routed_order(scores, [c.chunk_id for c in FUSED]) == ["A:1", "A:0", "B:1", "B:0", "C:0"]


def test_an_off_topic_section_is_never_lifted_above_the_topical_record() -> None:
    scores = routed_scores(FUSED, [ELIGIBILITY], PARAMS.model_copy(update={"weight": 100.0}))
    assert scores["C:0"] == pytest.approx(0.25)
    assert scores["C:0"] < scores["B:0"] < scores["A:0"]


def test_fetched_sections_enter_at_zero_and_rise_only_by_their_route() -> None:
    fetched = [
        Candidate("A:7", "A", 0.0, "eligibility", False),
        Candidate("C:7", "C", 0.0, "eligibility", False),  # not a topical record: left out
        Candidate("A:8", "A", 0.0, None, False),  # matches no boost: left out
        Candidate("A:9", "A", 0.0, "eligibility", False, near_empty=True),  # a stub: left out
        Candidate("A:1", "A", 0.0, "eligibility", False),  # already fused: its fused score stands
    ]
    scores = routed_scores(FUSED, [ELIGIBILITY], PARAMS, fetched)
    assert scores["A:7"] == pytest.approx(0.85)  # 0 + 0.5 x 1.7 x 1.0
    assert "C:7" not in scores and "A:8" not in scores and "A:9" not in scores
    assert scores["A:1"] == pytest.approx(1.35)


def test_topicality_is_judged_on_the_first_depth_chunks_but_every_fused_chunk_is_routed() -> None:
    shallow = PARAMS.model_copy(update={"depth": 2})  # A:0 and B:0 decide: A 1.0, B 0.75
    scores = routed_scores(FUSED, [ELIGIBILITY], shallow)
    # B:1 sits past the depth and is still lifted: 0.1/0.8 + 0.5 x 1.7 x 0.75.
    assert scores["B:1"] == pytest.approx(0.7625)


def test_no_boost_or_no_positive_score_keeps_the_fused_order() -> None:
    scores = routed_scores(FUSED, [], PARAMS)
    assert scores == {c.chunk_id: c.score for c in FUSED}  # raw scores, not rescaled
    assert routed_order(scores, [c.chunk_id for c in FUSED]) == [c.chunk_id for c in FUSED]
    zero = [Candidate("a", "A", 0.0, "eligibility", False), Candidate("b", "B", 0.0, None, False)]
    assert routed_scores(zero, [ELIGIBILITY], PARAMS) == {"a": 0.0, "b": 0.0}


def test_ties_keep_the_fused_order_and_fetched_chunks_come_after() -> None:
    assert routed_order({"b": 1.0, "a": 1.0, "z": 1.0}, ["a", "b"]) == ["a", "b", "z"]


def test_routing_matches_only_intent_and_table_fields() -> None:
    with pytest.raises(ValueError, match="cannot match on field"):
        route_factor(FUSED[0], [Boost("source", ("ctgov",), 2.0, "r", "x")])


def test_a_stub_section_is_never_routed_to() -> None:
    stub = Candidate("A:9", "A", 0.1, "ae", True, near_empty=True)
    assert route_factor(stub, [ELIGIBILITY, TABLES, Boost("intent_hint", ("ae",), 2.0, "r", "ae")]) == 1.0


def _result(chunk_id: str, score: float, intent: str | None = None) -> ChunkResult:
    return ChunkResult(
        chunk_id=chunk_id, doc_id=chunk_id.split(":")[0], text="", score=score, intent_hint=intent
    )


def test_route_chunks_returns_one_list_in_score_order_without_duplicates() -> None:
    fused = [
        _result("A:0", 0.8),
        _result("B:0", 0.6),
        _result("A:1", 0.4, "eligibility"),
        _result("C:0", 0.2),
    ]
    fetched = [_result("A:1", 0.0, "eligibility"), _result("A:5", 0.0, "eligibility")]
    routed = route_chunks(fused, [ELIGIBILITY], PARAMS, fetched)
    assert [c.chunk_id for c in routed] == ["A:1", "A:0", "A:5", "B:0", "C:0"]
    scores = [c.score for c in routed]
    assert scores == sorted(scores, reverse=True)  # pages and document aggregation follow the scores
    assert routed[0].score == pytest.approx(1.35) and routed[2].score == pytest.approx(0.85)


def test_section_query_fetches_matching_non_stub_chunks_of_the_records_under_the_filters() -> None:
    body = section_query("tenant-a", Filters(source=["ctgov"]), ["A", "B"], [ELIGIBILITY, TABLES])
    query = body["query"]["bool"]
    assert query["filter"] == [
        {"term": {"tenant_id": "tenant-a"}},
        {"terms": {"source": ["ctgov"]}},
        {"terms": {"doc_id": ["A", "B"]}},
    ]
    assert query["should"] == [{"term": {"intent_hint": "eligibility"}}, {"term": {"is_table": True}}]
    assert query["minimum_should_match"] == 1
    assert query["must_not"] == [{"term": {"near_empty": True}}]
    assert body["size"] == 2 * SECTIONS_PER_DOCUMENT
    with pytest.raises(ValueError, match="needs documents and boosts"):
        section_query("t", Filters(), [], [ELIGIBILITY])


# -- near-empty chunks sink below content --------------------------------------------------------


def test_a_near_empty_chunk_never_ranks_above_a_chunk_with_content() -> None:
    # A stub of trial A would be lifted to the top by topicality (fused 0.8 is the best score).
    fused = [
        Candidate("A:stub", "A", 0.8, "eligibility", False, near_empty=True),
        Candidate("A:1", "A", 0.7, "eligibility", False),
        Candidate("B:1", "B", 0.2, None, False),
    ]
    scores = routed_scores(fused, [ELIGIBILITY], PARAMS)
    # content: A:1 0.7/0.8 + 0.5 x 1.7 x 1.0 = 1.725; B:1 0.25 (B's topicality 0.25 < 0.5: not lifted)
    assert scores["A:1"] == pytest.approx(1.725)
    assert scores["B:1"] == pytest.approx(0.25)
    # the stub: its own 1.0, scaled to half the lowest content score
    assert scores["A:stub"] == pytest.approx(0.125)
    assert routed_order(scores, [c.chunk_id for c in fused]) == ["A:1", "B:1", "A:stub"]


def test_stubs_keep_their_own_order_below_content() -> None:
    scores = sink_near_empty(
        {"s1": 0.9, "s2": 0.3, "c": 0.4},
        [
            Candidate("s1", "A", 0.9, None, False, near_empty=True),
            Candidate("s2", "A", 0.3, None, False, near_empty=True),
            Candidate("c", "A", 0.4, None, False),
        ],
    )
    assert scores == pytest.approx({"s1": 0.2, "s2": 0.2 / 3, "c": 0.4})


def test_no_stub_changes_nothing_and_zero_content_puts_stubs_at_zero() -> None:
    content = [Candidate("c", "A", 0.4, None, False)]
    assert sink_near_empty({"c": 0.4}, content) == {"c": 0.4}
    stub_over_zero = [Candidate("s", "A", 0.9, None, False, True), Candidate("c", "A", 0.0, None, False)]
    assert sink_near_empty({"s": 0.9, "c": 0.0}, stub_over_zero) == {"s": 0.0, "c": 0.0}
