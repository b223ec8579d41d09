"""The clinical search pipelines, queried as a client does (plain text, a pipeline name), against
/v1/search on the same stack: the same ranking, the client's filters honoured, and a plain hybrid
answer when the clinical models fail (their fault switch). Every form a client or RAG library sends
(filters, field lists, multi_match, hybrid with the client's knn) ranks as the plain form, routed; what
the pipelines cannot serve is a 400 saying what to send; hits routing cannot read say so."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from flask.testing import FlaskClient
from integration.api.stack import ApiStack, headers
from integration.fault_switch import arm, disarm, requests_reached
from opensearchpy import OpenSearch
from opensearchpy.exceptions import TransportError
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.client_forms.forms import CLIENT_VECTOR, NARROW_SOURCE, PLAIN
from benchmarks.client_forms.forms import FORMS as CLIENT_FORMS
from benchmarks.pipeline_steps.measure import window_pipelines
from control_plane.api.app import create_app
from control_plane.clinical.pipeline import NO_ROUTE_STEP, route_note
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.query.components import product_text_hybrid, text_search_body
from control_plane.testsets.catalog import load_test_set

pytestmark = pytest.mark.integration
PIPELINES = {"weighted": "clinical-minmax", "rrf": "clinical-rrf"}
TOP = 10
TIE = 1e-5


def _direct(
    client: OpenSearch, index: str, pipeline: str, query: dict[str, Any], size: int = TOP + 2
) -> list[dict[str, Any]]:
    body = {"size": size, "query": query, "_source": {"excludes": ["embedding", "sparse_terms"]}}
    answer = client.search(index=index, params={"search_pipeline": pipeline}, body=body)
    return list(answer["hits"]["hits"])


@pytest.fixture(scope="module")
def unfetched(stack: ApiStack, client: OpenSearch) -> FlaskClient:
    """/v1/search as the pipelines can route: without the section fetch (a pipeline cannot send a
    second request), the same routing window."""
    routing = stack.settings.search.section_routing
    search = stack.settings.search.model_copy(
        update={"section_routing": routing.model_copy(update={"fetch_sections": False})}
    )
    settings = stack.settings.model_copy(update={"search": search})
    return create_app(settings, client, evaluation=load_evaluation_settings(environ={})).test_client()


@pytest.fixture(scope="module")
def at_depth(stack: ApiStack, client: OpenSearch) -> Iterator[dict[str, str]]:
    """The clinical pipelines with their window at the routing depth (fusion -> pipeline name): what
    /v1/search without the section fetch ranks like. A wider installed window is copied at the depth (its
    hits below the depth stand for the fetch)."""
    depth = stack.settings.search.section_routing.depth
    with (
        window_pipelines(client, PIPELINES["weighted"], [depth], f"{stack.prefix}-minmax") as minmax,
        window_pipelines(client, PIPELINES["rrf"], [depth], f"{stack.prefix}-rrf") as rrf,
    ):
        yield {"weighted": minmax[depth], "rrf": rrf[depth]}


def _api(
    api: FlaskClient, stack: ApiStack, text: str, fusion: str, size: int = TOP + 2
) -> list[dict[str, Any]]:
    body: dict[str, Any] = {"query": text, "size": size, "boosts": True, "fusion_method": fusion}
    if fusion == "weighted":  # the pipeline's fixed weights (a pipeline cannot take per-query-type ones)
        body["weights"] = stack.settings.fusion.weights.model_dump()
    answer = api.post("/v1/search", json=body, headers=headers("a-search"))
    assert answer.status_code == 200, answer.get_json()
    return list(answer.get_json()["results"])


def same_top(api: Sequence[tuple[str, float]], direct: Sequence[str], top: int = TOP) -> bool:
    """Whether ``direct`` ranks the top ``top`` as ``api`` does, chunks of equal score in any order:
    compared tie group by tie group, up to the last group that ends within the top."""
    start = 0
    while start < min(top, len(api)):
        end = start + 1
        while end < len(api) and abs(api[end][1] - api[start][1]) <= TIE:
            end += 1
        if end > top and start > 0:
            break
        if {c for c, _ in api[start:end]} != set(direct[start:end]):
            return False
        start = end
    return True


def test_same_top_reads_ties_as_one_group() -> None:
    api = [("a", 1.0), ("b", 0.5), ("c", 0.5), ("d", 0.2)]
    assert same_top(api, ["a", "c", "b", "d"], top=4)
    assert not same_top(api, ["b", "a", "c", "d"], top=4)


@pytest.mark.parametrize("fusion", ["weighted", "rrf"])
def test_a_plain_question_through_a_clinical_pipeline_ranks_as_v1_search(
    stack: ApiStack, client: OpenSearch, unfetched: FlaskClient, at_depth: dict[str, str], fusion: str
) -> None:
    index = f"{stack.prefix}-a"
    questions = list(load_test_set("clinical/dev").queries())
    differ = []
    for question in questions:
        api = [(r["chunk_id"], float(r["score"])) for r in _api(unfetched, stack, question.text, fusion)]
        direct = [
            h["_id"] for h in _direct(client, index, at_depth[fusion], {"match": {"text": question.text}})
        ]
        if not same_top(api, direct):
            differ.append((question.text, [c for c, _ in api[:TOP]], direct[:TOP]))
    assert len(questions) >= 100
    assert not differ, f"{len(differ)} of {len(questions)} questions rank differently, e.g. {differ[:2]}"


def test_the_routed_answer_says_what_it_applied_and_keeps_the_page_size(
    stack: ApiStack, client: OpenSearch
) -> None:
    hits = _direct(
        client,
        f"{stack.prefix}-a",
        "clinical-minmax",
        {"match": {"text": "side effects of the treatment"}},
        size=3,
    )
    assert len(hits) == 3
    notes = [route_note(h["_source"]) for h in hits]
    assert all(note.startswith("intents=adverse_events") for note in notes), notes
    assert "lifted" in notes[0] and "not lifted" not in notes[0]
    assert all("previous_score" in h["_source"] and "route_score" not in h["_source"] for h in hits)


def test_client_filters_reach_every_sub_query_and_are_never_widened(
    stack: ApiStack, client: OpenSearch
) -> None:
    index = f"{stack.prefix}-a"
    question = "eligibility for breast cancer trials"
    narrowed = _direct(client, index, "clinical-rrf", {"match": {"text": question}}, size=30)
    assert {h["_source"]["source"] for h in narrowed} == {"ctgov", "pmc"}
    filtered = {"bool": {"must": [{"match": {"text": question}}], "filter": [{"term": {"source": "pmc"}}]}}
    hits = _direct(client, index, "clinical-rrf", filtered, size=30)
    assert hits and {h["_source"]["source"] for h in hits} == {"pmc"}
    one = sorted({h["_source"]["doc_id"] for h in narrowed})[0]
    confined = {"bool": {"must": [{"match": {"text": question}}], "filter": {"term": {"doc_id": one}}}}
    assert {h["_source"]["doc_id"] for h in _direct(client, index, "clinical-minmax", confined, size=30)} == {
        one
    }


# The demo corpus's trials with breast cancer in their title or conditions.
BREAST_CANCER_TRIALS = {"NCT02465060", "NCT03133988", "NCT03424005"}


@pytest.mark.parametrize("pipeline", ["clinical-minmax", "clinical-rrf"])
def test_a_question_about_many_trials_leads_with_their_criteria(
    stack: ApiStack, client: OpenSearch, pipeline: str
) -> None:
    """make run's first showcase query asks about every breast cancer trial: the criteria the window holds
    of the trials whose title and conditions name breast cancer come first, before any other record's
    criteria (a diabetes cohort that counts breast cancers is not about them)."""
    question = {"match": {"text": "eligibility for breast cancer trials"}}
    hits = [h["_source"] for h in _direct(client, f"{stack.prefix}-a", pipeline, question, size=10)]
    assert hits[0]["intent_hint"] == "eligibility" and hits[0]["doc_id"] in BREAST_CANCER_TRIALS, hits[0]
    lifted = [h["doc_id"] for h in hits if "lifted x" in str(route_note(h))]
    on_topic = [doc in BREAST_CANCER_TRIALS for doc in lifted]
    assert sum(on_topic) >= 3 and on_topic == sorted(on_topic, reverse=True), lifted


def test_make_runs_side_effects_question_through_clinical_rrf_leads_with_adverse_events(
    stack: ApiStack, client: OpenSearch
) -> None:
    """make run's second showcase query: ``clinical-rrf`` lifts the adverse-event sections first."""
    question = {"match": {"text": "side effects of the treatment"}}
    hits = [h["_source"] for h in _direct(client, f"{stack.prefix}-a", "clinical-rrf", question, size=5)]
    assert hits[0]["intent_hint"] == "ae" and "lifted x" in str(route_note(hits[0])), hits[0]


# Each form a client or library sends (the one list: the client-forms benchmark reports the same).
FORMS = {name: form for name, form in CLIENT_FORMS.items() if name != PLAIN}


def _form_hits(client: OpenSearch, index: str, pipeline: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    body = {"size": TOP, "_source": {"excludes": ["embedding", "sparse_terms"]}, **body}
    return list(client.search(index=index, params={"search_pipeline": pipeline}, body=body)["hits"]["hits"])


@pytest.fixture(scope="module")
def plain_tops(stack: ApiStack, client: OpenSearch) -> dict[tuple[str, str], list[str]]:
    """The plain form's top 10 per dev question and pipeline: what every other form must give."""
    index = f"{stack.prefix}-a"
    return {
        (pipeline, q.text): [
            h["_id"] for h in _direct(client, index, pipeline, {"match": {"text": q.text}}, TOP)
        ]
        for pipeline in ("clinical-minmax", "clinical-rrf")
        for q in _form_questions()
    }


def _form_questions() -> list[Any]:
    return list(load_test_set("clinical/dev").queries())[:12]


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_client_form_is_routed_and_ranks_as_the_plain_form(
    stack: ApiStack, client: OpenSearch, plain_tops: dict[tuple[str, str], list[str]], form: str
) -> None:
    index, differ = f"{stack.prefix}-a", []
    pipeline = "clinical-rrf" if "filter" in form else "clinical-minmax"
    for question in _form_questions():
        hits = _form_hits(client, index, pipeline, FORMS[form](question.text))
        notes = [route_note(h["_source"]) or "" for h in hits]
        assert hits and all(note.startswith("intents=") for note in notes), (question.text, notes)
        if [h["_id"] for h in hits] != plain_tops[(pipeline, question.text)]:
            differ.append(question.text)
    assert not differ, (
        f"{form}: {len(differ)} questions rank otherwise than the plain form, e.g. {differ[:2]}"
    )


def test_a_body_level_search_pipeline_is_the_pipeline(
    stack: ApiStack, client: OpenSearch, plain_tops: dict[tuple[str, str], list[str]]
) -> None:
    """Haystack's custom_query carries the pipeline in the body, which OpenSearch 3.6 reads."""
    question = _form_questions()[0].text
    body = {"search_pipeline": "clinical-minmax", "size": TOP, "query": {"match": {"text": question}}}
    hits = client.search(index=f"{stack.prefix}-a", body=body)["hits"]["hits"]
    assert [h["_id"] for h in hits] == plain_tops[("clinical-minmax", question)]


def test_a_narrow_source_is_routed_and_keeps_the_fields_asked_plus_the_routing_fields(
    stack: ApiStack, client: OpenSearch
) -> None:
    body = {
        "size": 5,
        "_source": NARROW_SOURCE,
        "query": {"match": {"text": "side effects of the treatment"}},
    }
    hits = client.search(index=f"{stack.prefix}-a", params={"search_pipeline": "clinical-minmax"}, body=body)
    for hit in hits["hits"]["hits"]:
        fields = set(hit["_source"])
        assert set(NARROW_SOURCE) <= fields and "embedding" not in fields and "facet_json" not in fields
        assert fields - set(NARROW_SOURCE) - {"topics"} == {  # topics: where the record declares some
            "start",
            "intent_hint",
            "near_empty",
            "identifiers",
            "title_path",
            "previous_score",
            "metadata",
        }
        assert hit["_source"]["metadata"]["clinical_route"].startswith("intents=adverse_events")


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"from": 10, "size": 10, "query": {"match": {"text": "dose"}}}, "first page only"),
        ({"size": 500, "query": {"match": {"text": "dose"}}}, "at most 100 hits"),
        ({"highlight": {"fields": {"text": {}}}, "query": {"match": {"text": "dose"}}}, "no highlights"),
        ({"query": {"knn": {"embedding": {"vector": CLIENT_VECTOR, "k": 5}}}}, "vector alone"),
        ({"query": {"term": {"source": "pmc"}}}, "got 'term'"),
        ({"query": {"match": {"text": "\u200b\ufeff"}}}, "got 'match'"),  # nothing a reader would see
        ({"_source": {"excludes": ["t*"]}, "query": {"match": {"text": "dose"}}}, "would drop"),  # issue 73
        ({"_source": {"excludes": ["*"]}, "query": {"match": {"text": "dose"}}}, "would drop"),
        # 50 KB: a 500 ("Read timed out") while the service computed on, before issue 50
        ({"query": {"match": {"text": "adverse events " * 3500}}}, "at most 2000 are searched"),
    ],
)
def test_what_the_pipelines_cannot_serve_is_a_400_saying_what_to_send(
    stack: ApiStack, client: OpenSearch, body: dict[str, Any], says: str
) -> None:
    for pipeline in ("clinical-minmax", "clinical-rrf"):
        with pytest.raises(TransportError) as refused:
            client.search(index=f"{stack.prefix}-a", params={"search_pipeline": pipeline}, body=body)
        reason = json.dumps(refused.value.info)  # the service's message, quoted inside OpenSearch's
        assert refused.value.status_code == 400 and says in reason, reason


def test_a_question_with_nothing_visible_is_a_400_through_the_plain_pipelines_too(
    stack: ApiStack, client: OpenSearch
) -> None:
    # Issue 73: zero-width characters passed str.strip() and were answered with arbitrary hits. Without a
    # rewrite, the dense clause's query encoding is where the inference service refuses it.
    body = text_search_body("\u200b\ufeff\u2060", 5)
    for pipeline in ("hybrid-minmax", "hybrid-rrf"):
        with pytest.raises(TransportError) as refused:
            client.search(index=f"{stack.prefix}-a", params={"search_pipeline": pipeline}, body=body)
        reason = json.dumps(refused.value.info)
        assert refused.value.status_code == 400 and "no visible character" in reason, (pipeline, reason)


def test_hits_routing_cannot_read_keep_the_fused_order_and_say_why(
    stack: ApiStack, client: OpenSearch
) -> None:
    """An index whose chunks lack ``start`` (the field the pipeline's first step sorts by to hand routing
    the fused scores): every hit says it was not routed and why, the fused order stands, and the
    inference service counts it."""
    index, bare = f"{stack.prefix}-a", f"{stack.prefix}-nostart"
    client.reindex(
        body={
            "source": {"index": index},
            "dest": {"index": bare, "pipeline": "_none"},
            "script": {"source": "ctx._source.remove('start')", "lang": "painless"},
        },
        params={"refresh": "true", "wait_for_completion": "true"},
    )
    try:
        question = "mepolizumab"  # no clinical intent: the rewrite is the plain product query
        depth, ef = stack.settings.search.candidate_depth, stack.settings.index.knn.ef_search
        before = _degraded(
            stack.settings.models.service_url, endpoint="clinical_route", reason="missing_fields"
        )
        hits = _direct(client, bare, "clinical-minmax", {"match": {"text": question}}, size=TOP)
        plain = _direct(
            client, bare, "hybrid-minmax", product_text_hybrid(question, depth, ef_search=ef), size=TOP
        )
        assert [h["_id"] for h in hits] == [h["_id"] for h in plain]
        notes = {route_note(h["_source"]) for h in hits}
        assert len(notes) == 1 and str(notes.pop()).startswith("not routed: hits lack ['previous_score']")
        assert (
            _degraded(stack.settings.models.service_url, endpoint="clinical_route", reason="missing_fields")
            == before + 1
        )
    finally:
        client.indices.delete(index=bare, ignore_unavailable=True)


def test_the_rerank_form_reranks_with_the_clients_question_then_routes(
    stack: ApiStack, client: OpenSearch
) -> None:
    """The -rerank form's rewrite hands the question to the rerank processor's query context (the client
    sends none; without it the rerank step would be skipped, its failure ignored), the reranked window
    is routed, and the page size holds."""
    index, question = f"{stack.prefix}-a", "side effects of the treatment"
    fused = _direct(client, index, "clinical-minmax", {"match": {"text": question}}, size=5)
    reranked = _direct(client, index, "clinical-minmax-rerank", {"match": {"text": question}}, size=5)
    assert len(reranked) == 5
    assert all(str(route_note(h["_source"])).startswith("intents=adverse_events") for h in reranked)
    before_routing = {h["_id"]: h["_source"]["previous_score"] for h in fused}
    after_rerank = {h["_id"]: h["_source"]["previous_score"] for h in reranked}
    assert any(after_rerank[i] != before_routing[i] for i in after_rerank.keys() & before_routing.keys()) or (
        after_rerank.keys() != before_routing.keys()
    )


def _degraded(url: str, **labels: str) -> float:
    """The inference service's count of clinical calls that did not run their clinical step, over the
    series whose labels include ``labels`` (all of them when none are given)."""
    import urllib.request

    with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        if family.name == "biohybrid_inference_clinical_degraded"
        for sample in family.samples
        if sample.name.endswith("_total") and labels.items() <= sample.labels.items()
    )


def test_failed_clinical_models_leave_the_plain_hybrid_ranking(stack: ApiStack, client: OpenSearch) -> None:
    index, url = f"{stack.prefix}-a", stack.settings.models.service_url
    question = "eligibility for breast cancer trials"
    depth, ef = stack.settings.search.candidate_depth, stack.settings.index.knn.ef_search
    plain = _direct(
        client, index, "hybrid-minmax", product_text_hybrid(question, depth, ef_search=ef), size=TOP
    )
    degraded_before = _degraded(url)
    route_before = requests_reached(url, "clinical_route", "clinical").get("503", 0)
    # the rewrite, the window's route and the page's metadata: each of the three calls fails
    arm(url, 3, endpoints=("clinical_rewrite", "clinical_route"), message="clinical models down")
    try:
        started = time.perf_counter()
        hits = _direct(client, index, "clinical-minmax", {"match": {"text": question}}, size=TOP)
        spent = time.perf_counter() - started
    finally:
        disarm(url)
    assert [h["_id"] for h in hits] == [h["_id"] for h in plain]
    assert not any("metadata" in h["_source"] for h in hits)  # the documented sign: not routed
    assert {h["_source"]["source"] for h in hits} != {"ctgov"} or {h["_source"]["source"] for h in plain} == {
        "ctgov"
    }
    assert spent < 5.0
    assert _degraded(url) == degraded_before + 1
    assert requests_reached(url, "clinical_route", "clinical").get("503", 0) == route_before + 2


def test_a_page_whose_route_step_failed_says_so_in_its_metadata(stack: ApiStack, client: OpenSearch) -> None:
    """The window's route step fails (once), the page's metadata step answers: the fused order stands,
    and each hit's metadata (what a RAG library's document shows) says it was not routed and why."""
    index, url = f"{stack.prefix}-a", stack.settings.models.service_url
    question = {"match": {"text": "side effects of the treatment"}}
    before = _degraded(url, endpoint="clinical_route", reason="no_route_step")
    arm(url, 1, endpoints=("clinical_route",), message="route model down")
    try:
        hits = _direct(client, index, "clinical-minmax", question, size=TOP)
    finally:
        disarm(url)
    assert hits and all(h["_source"]["metadata"]["clinical_route"] == NO_ROUTE_STEP for h in hits)
    assert all(h["_source"]["metadata"]["doc_id"] == h["_source"]["doc_id"] for h in hits)
    scores = [h["_source"]["previous_score"] for h in hits]
    assert scores == sorted(scores, reverse=True)  # the fused order
    assert _degraded(url, endpoint="clinical_route", reason="no_route_step") == before + 1
