"""The clinical pipelines' models, pure: the client's query forms, the rewrite, and routed scores
computed by hand."""

from __future__ import annotations

import pytest

from control_plane.clinical.intents import load_intent_config
from control_plane.clinical.pipeline import (
    NO_ROUTE_STEP,
    ROUTING_FIELDS,
    PipelineQueryError,
    implied_note,
    page_metadata,
    question_text,
    rewrite,
    route,
    route_answered,
    route_note,
    with_routing_fields,
)
from control_plane.config.search_settings import FacetSettings, SectionRoutingSettings

CONFIG = load_intent_config()
FACETS = FacetSettings()
PARAMS = SectionRoutingSettings(weight=4.0, min_topicality=0.8, max_documents=3, depth=50)


def test_the_rewrite_is_the_product_hybrid_with_the_clients_filters_on_every_sub_query() -> None:
    done = rewrite(
        {
            "query": {
                "bool": {
                    "must": [{"match": {"text": "side effects"}}],
                    "filter": [{"term": {"source": "pmc"}}],
                }
            }
        },
        CONFIG,
        FACETS,
        depth=100,
        ef_search=200,
    )
    hybrid = done.query["hybrid"]
    assert hybrid["pagination_depth"] == 100
    assert hybrid["queries"][0]["multi_match"]["_name"] == "bm25"
    assert hybrid["queries"][1]["neural_sparse"]["sparse_terms"]["_name"] == "splade"
    assert hybrid["queries"][2]["bool"]["_name"] == "dense"
    neural = hybrid["queries"][2]["bool"]["must"][0]["neural"]["embedding"]
    assert neural["k"] == 100 and neural["method_parameters"] == {"ef_search": 200}
    assert neural["filter"] == hybrid["filter"] == {"bool": {"filter": [{"term": {"source": "pmc"}}]}}
    assert [i.name for i in done.plan.intents] == ["adverse_events"]
    assert question_text(done.query) == "side effects"
    assert done.source is None  # no _source asked: the whole of it is fetched


def test_the_question_is_found_where_opensearch_moved_the_bm25_clause() -> None:
    """OpenSearch pushes a hybrid's filter into each sub-query: the named BM25 clause is then nested."""
    pushed = {
        "hybrid": {
            "queries": [
                {
                    "bool": {
                        "must": [{"multi_match": {"query": "dose", "_name": "bm25"}}],
                        "filter": [{"term": {}}],
                    }
                },
                {"bool": {"must": [{"neural": {"embedding": {"query_text": "other"}}}]}},
            ]
        }
    }
    assert question_text(pushed) == "dose"


@pytest.mark.parametrize(
    ("asked", "fetched"),
    [
        (None, None),
        (False, {"includes": list(ROUTING_FIELDS), "excludes": []}),
        (
            {"includes": ["doc_id", "text"], "excludes": []},
            {
                "includes": [
                    "doc_id",
                    "text",
                    "chunk_id",
                    "start",
                    "intent_hint",
                    "is_table",
                    "near_empty",
                    "identifiers",
                    "title_path",
                    "topics",
                ],
                "excludes": [],
            },
        ),
        (
            {"includes": [], "excludes": ["embedding", "sparse_terms"]},
            {"includes": [], "excludes": ["embedding", "sparse_terms"]},
        ),
        (["text"], {"includes": ["text", *ROUTING_FIELDS], "excludes": []}),
        ({"excludes": "embedding"}, {"includes": [], "excludes": ["embedding"]}),  # one field as a string
        ({"includes": "text"}, {"includes": ["text", *ROUTING_FIELDS], "excludes": []}),
    ],
)
def test_a_clients_source_is_widened_to_the_routing_fields(asked: object, fetched: object) -> None:
    assert with_routing_fields(asked) == fetched


@pytest.mark.parametrize("fields", [7, {"a": 1}, ["text", 3]])
def test_includes_or_excludes_that_are_not_field_names_are_refused(fields: object) -> None:
    with pytest.raises(PipelineQueryError, match="field names or lists of them"):
        with_routing_fields({"excludes": fields})


@pytest.mark.parametrize(
    ("excludes", "needed"),
    [
        (["t*"], "['title_path', 'topics']"),
        (["*"], "['chunk_id', 'doc_id'"),
        (["embedding", "intent_*", "near_empty"], "['intent_hint', 'near_empty']"),
    ],
)
def test_an_exclude_of_a_field_routing_reads_is_refused_never_dropped(
    excludes: list[str], needed: str
) -> None:
    # Issue 73: dropping it returned what the client excluded (["t*"] gave back text and title_path).
    with pytest.raises(PipelineQueryError, match="would drop") as refused:
        with_routing_fields({"excludes": excludes})
    assert needed in str(refused.value) and "exclude other fields by name" in str(refused.value)


@pytest.mark.parametrize(
    ("page", "says"), [({"from": 10, "size": 10}, "first page only"), ({"size": 500}, "at most 100 hits")]
)
def test_a_page_the_pipelines_cannot_route_is_refused_with_what_to_ask(
    page: dict[str, int], says: str
) -> None:
    with pytest.raises(PipelineQueryError, match=says):
        rewrite({"query": {"match": {"text": "dose"}}, **page}, CONFIG, FACETS, depth=100)
    assert rewrite({"query": {"match": {"text": "dose"}}, "from": 0, "size": 100}, CONFIG, FACETS, depth=100)


def _hit(
    chunk: str, doc: str, score: float, hint: str | None = None, table: bool = False
) -> dict[str, object]:
    return {"chunk_id": chunk, "doc_id": doc, "previous_score": score, "intent_hint": hint, "is_table": table}


def test_routed_scores_by_hand() -> None:
    # "side effects": adverse_events at 0.9 -> intent_hint ae x boost; A is the only topical record.
    hits = [_hit("B:0", "B", 0.4, "ae"), _hit("A:0", "A", 0.8), _hit("A:1", "A", 0.2, "ae")]
    routed = route(hits, {"match": {"text": "side effects"}}, CONFIG, FACETS, PARAMS)
    boost = CONFIG.intents["adverse_events"].boost * 0.9
    table = 1 + CONFIG.table_routing.per_confidence * 0.9
    factor = (
        max(boost, table) if CONFIG.intents["adverse_events"].table_routing == "tables_and_targets" else boost
    )
    assert routed.scores[1] == pytest.approx(1.0)
    assert routed.scores[0] == pytest.approx(0.5)  # B is not topical (0.5 < 0.8): not lifted
    assert routed.scores[2] == pytest.approx(0.25 + 4.0 * (factor - 1.0))
    assert "lifted x" in routed.notes[2] and "not lifted" in routed.notes[0]


def test_a_question_about_many_records_lifts_the_criteria_of_the_records_declaring_its_topic() -> None:
    """make run's showcase, by hand: the diabetes cohort's description is the best fused chunk and the
    triple-negative breast cancer trial's only chunk in the window is its criteria, far below. The
    trial's title and conditions name breast cancer, so it is fully topical and its criteria are lifted;
    the cohort, which declares diabetes, is judged by the fused ranking as before (topical: lifted too)."""
    hits = [
        {**_hit("cohort:0", "cohort", 0.9), "title_path": "Pioglitazone and Cancer Incidence in Diabetes"},
        {**_hit("cohort:1", "cohort", 0.5, "eligibility"), "topics": ["Diabetes Mellitus, Type 2, Cancer"]},
        {
            **_hit("tnbc:3", "tnbc", 0.2, "eligibility"),
            "title_path": "Morpheus-TNBC \u203a Eligibility",
            "topics": ["Triple Negative Breast Cancer", "Breast Neoplasms"],
        },
    ]
    question = {"match": {"text": "eligibility for breast cancer trials"}}
    routed = route(hits, question, CONFIG, FACETS, PARAMS, "rrf")
    # eligibility: boost 3.0 x confidence 0.6 (one cue word) = 1.8; lift = weight 4 x 0.8 x topicality 1
    assert routed.scores[2] == pytest.approx(0.2 / 0.9 + 4.0 * 0.8)
    assert "lifted x1.80" in routed.notes[2] and "lifted x1.80" in routed.notes[1]
    without = [{k: v for k, v in hit.items() if k not in ("title_path", "topics")} for hit in hits]
    unlifted = route(without, question, CONFIG, FACETS, PARAMS, "rrf")
    assert "not lifted" in unlifted.notes[2]  # by the fused ranking alone, 0.2 / 0.9: not topical


def test_a_question_without_intent_keeps_the_fused_scores() -> None:
    hits = [_hit("A:0", "A", 0.3), _hit("A:1", "A", 0.7, "eligibility")]
    routed = route(hits, {"match": {"text": "mepolizumab"}}, CONFIG, FACETS, PARAMS)
    assert routed.scores == (0.3, 0.7)


def test_hits_without_their_fused_score_are_answered_unrouted_in_their_order_with_the_reason() -> None:
    routed = route([{"doc_id": "A"}, {"doc_id": "B"}], {"match": {"text": "dose"}}, CONFIG, FACETS, PARAMS)
    assert routed.unrouted == "missing_fields"
    assert routed.scores == (2.0, 1.0)
    assert all(note.startswith("not routed: hits lack ['previous_score']") for note in routed.notes)


def test_hits_that_share_a_chunk_id_are_answered_by_fused_score_unrouted() -> None:
    hits = [_hit("A:0", "A", 0.2, "ae"), _hit("A:0", "B", 0.9)]
    routed = route(hits, {"match": {"text": "side effects"}}, CONFIG, FACETS, PARAMS)
    assert routed.unrouted == "duplicate_ids" and routed.scores == (0.2, 0.9)


def test_a_highlight_is_refused_rather_than_dropped() -> None:
    with pytest.raises(PipelineQueryError, match="no highlights"):
        rewrite(
            {"query": {"match": {"text": "dose"}}, "highlight": {"fields": {"text": {}}}}, CONFIG, FACETS, 100
        )


def test_each_page_hit_gets_a_metadata_object_of_what_it_has_its_note_and_fused_score() -> None:
    """The page step: a hit's metadata fields, the note the window's step left in its metadata (replaced
    whole: the routed score the last rerank sorted by is not kept) or implied (it answered the hit's
    routed score alone), and its fused score; a hit the window's step never reached says so."""
    hits = [
        {
            **_hit("A:0", "A", 0.8),
            "source": "ctgov",
            "section": "ae",
            "metadata": {"clinical_route": "intents=adverse_events; lifted x2.80", "route_score": 2.1},
        },
        {**_hit("C:0", "C", 0.5), "metadata": {"route_score": 0.5}},
        {"doc_id": "B"},
    ]
    assert page_metadata(hits, "intents=adverse_events; not lifted") == {
        "metadata": [
            {
                "doc_id": "A",
                "chunk_id": "A:0",
                "source": "ctgov",
                "section": "ae",
                "is_table": False,
                "clinical_route": "intents=adverse_events; lifted x2.80",
                "fused_score": 0.8,
            },
            {
                "doc_id": "C",
                "chunk_id": "C:0",
                "is_table": False,
                "clinical_route": "intents=adverse_events; not lifted",
                "fused_score": 0.5,
            },
            {"doc_id": "B", "clinical_route": NO_ROUTE_STEP},
        ]
    }
    assert [route_answered(hit) for hit in hits] == [True, True, False]


def test_the_note_a_route_answer_leaves_out_is_the_one_the_page_step_implies() -> None:
    """The window's answer leaves out the plan's "not lifted" note (most hits carry it, and ml-commons
    re-reads the whole answer per hit); the page step rebuilds the same note from the same query."""
    query = {"match": {"text": "side effects of the treatment"}}
    hits = [{**_hit("A:0", "A", 0.8), "intent_hint": "ae"}, _hit("A:1", "A", 0.7), _hit("B:0", "B", 0.1)]
    routed = route(hits, query, CONFIG, FACETS, PARAMS)
    implied = implied_note(query, CONFIG, FACETS)
    assert implied == routed.implied_note == "intents=adverse_events; not lifted"
    assert routed.notes[0].startswith("intents=adverse_events; lifted x") and routed.notes[1] == implied
    answered = routed.answer("metadata")["metadata"]
    assert answered[0] == {"clinical_route": routed.notes[0], "route_score": round(routed.scores[0], 7)}
    assert answered[1] == {"route_score": round(routed.scores[1], 7)}
    after_rerank = [{**hit, "metadata": note} for hit, note in zip(hits, answered, strict=True)]
    page = page_metadata(after_rerank, implied)["metadata"]
    assert [entry["clinical_route"] for entry in page] == list(routed.notes)


def test_an_unrouted_answer_keeps_every_note() -> None:
    """When routing cannot run, every hit says why: nothing is implied."""
    routed = route([{"doc_id": "A"}], {"match": {"text": "side effects"}}, CONFIG, FACETS, PARAMS)
    assert routed.unrouted == "missing_fields" and routed.implied_note is None
    assert routed.answer("metadata")["metadata"][0]["clinical_route"].startswith("not routed: hits lack")


def test_the_route_answer_takes_the_shape_of_the_pipeline_form() -> None:
    """``metadata``: one small object per window hit, its routed score and its note unless implied (the
    pipeline's last rerank sorts by the score); ``fields``: the scores and notes as two lists (the
    Haystack form); ``page`` is not a route's answer."""
    hits = [{**_hit("A:0", "A", 0.8), "source": "ctgov"}, _hit("B:0", "B", 0.3)]
    routed = route(hits, {"match": {"text": "side effects"}}, CONFIG, FACETS, PARAMS)
    scores = [round(s, 7) for s in routed.scores]
    assert routed.answer("metadata") == {
        "metadata": [
            {"route_score": score}
            if note == routed.implied_note
            else {"clinical_route": note, "route_score": score}
            for note, score in zip(routed.notes, scores, strict=True)
        ]
    }
    assert routed.answer("fields") == {"scores": scores, "notes": list(routed.notes)}
    with pytest.raises(ValueError, match="page_metadata"):
        routed.answer("page")


def test_a_route_note_is_read_where_either_form_writes_it() -> None:
    assert (
        route_note({"metadata": {"clinical_route": "intents=none; not lifted"}}) == "intents=none; not lifted"
    )
    assert route_note({"clinical_route": "not routed: x"}) == "not routed: x"
    assert route_note({"doc_id": "A"}) is None
    assert route_note({"metadata": {"doc_id": "A"}, "clinical_route": "stale"}) is None


def test_a_question_naming_an_absent_record_lifts_nothing_and_says_why() -> None:
    hits = [
        {**_hit("B:0", "B", 0.8), "identifiers": ["NCT00000001"]},
        {**_hit("B:1", "B", 0.4, "eligibility"), "identifiers": ["NCT00000001"]},
    ]
    routed = route(hits, {"match": {"text": "NCT03548935 eligibility criteria"}}, CONFIG, FACETS, PARAMS)
    assert routed.scores == (0.8, 0.4)
    assert routed.unrouted is None  # not a fault: an answer
    assert all(n.endswith("not routed: no record here carries NCT03548935") for n in routed.notes)
    present = route(hits, {"match": {"text": "NCT00000001 eligibility criteria"}}, CONFIG, FACETS, PARAMS)
    assert present.scores[1] > present.scores[0]  # the named record's criteria are lifted


def test_a_question_about_many_trials_lifts_the_asked_section_of_each() -> None:
    """Five records all on the topic (topicality >= 0.8): "... trials" lifts the criteria of every one,
    "... the trial" of the settings' three most topical only."""
    hits = [
        _hit(f"{doc}:0", doc, score)
        for doc, score in zip("ABCDE", (1.0, 0.98, 0.96, 0.94, 0.92), strict=True)
    ]
    hits += [_hit(f"{doc}:1", doc, 0.1, "eligibility") for doc in "ABCDE"]
    many = route(hits, {"match": {"text": "inclusion criteria of asthma trials"}}, CONFIG, FACETS, PARAMS)
    one = route(hits, {"match": {"text": "inclusion criteria of the asthma trial"}}, CONFIG, FACETS, PARAMS)
    lifted_many = {hits[i]["doc_id"] for i, note in enumerate(many.notes) if "lifted x" in note}
    lifted_one = {hits[i]["doc_id"] for i, note in enumerate(one.notes) if "lifted x" in note}
    assert lifted_many == set("ABCDE")
    assert lifted_one == set("ABC")
