"""The relevance console's JSON endpoints on the real stack: a clinical pipeline queried as a client
queries it against /v1/search with boosts on, over tenant A's ClinicalTrials.gov and PMC records; the
tenant's confinement; the eval-runs plot from real evaluation runs; the overview; every bad input a 4xx
naming what was wrong."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from integration.api.console_app import ADMIN, CONFIGURATIONS, ConsoleApp, console_app, evaluate
from integration.api.stack import ApiStack, headers
from opensearchpy import OpenSearch

pytestmark = pytest.mark.integration

QUESTION = "adverse events of the treatment"
PIPELINE = {"kind": "pipeline", "pipeline": "clinical-minmax"}
BOOSTED = {"kind": "search", "options": {"boosts": True}}


@pytest.fixture(scope="module")
def console(
    client: OpenSearch, stack: ApiStack, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ConsoleApp]:
    made = console_app(client, stack, tmp_path_factory.mktemp("console"))
    try:
        yield made
    finally:
        client.indices.delete(index=made.runs_index, ignore_unavailable=True)


@pytest.fixture(scope="module")
def api(console: ConsoleApp) -> FlaskClient:
    return console.app.test_client()


def compare(api: FlaskClient, body: dict[str, Any], key: str = ADMIN) -> tuple[int, dict[str, Any]]:
    answer = api.post("/v1/admin/console/compare", json=body, headers=headers(key))
    return answer.status_code, answer.get_json()


def test_a_clinical_pipeline_and_boosted_search_side_by_side(api: FlaskClient, stack: ApiStack) -> None:
    status, answer = compare(api, {"question": QUESTION, "size": 8, "a": PIPELINE, "b": BOOSTED})
    assert status == 200, answer
    a, b = answer["columns"]
    assert (a["name"], b["name"]) == ("A", "B") and a["facts"]["pipeline"] == "clinical-minmax"
    assert "adverse_events" in b["facts"]["intents"] and b["facts"]["boosts"] != "none"
    for column in (a, b):
        hits = column["hits"]
        assert len(hits) == 8 and [h["rank"] for h in hits] == list(range(1, 9))
        assert {h["doc_id"] for h in hits} <= stack.tenant_docs["tenant-a"]  # the key's tenant only
        assert all(h["section"] for h in hits)
        assert all(h["route_note"].startswith("intents=adverse_events;") for h in hits)
        # each column's scores come from OpenSearch's named queries
        assert any(h["component_scores"]["dense"] is not None for h in hits)
        assert any(h["highlights"] for h in hits)
    # /v1/search routes the asked-about sections up: its top hit's section matches the boost
    assert "section boost x" in b["hits"][0]["route_note"]


def test_the_marks_agree_with_the_two_lists(api: FlaskClient) -> None:
    hybrid = {"kind": "pipeline", "pipeline": "hybrid-rrf"}
    status, answer = compare(api, {"question": QUESTION, "size": 10, "a": hybrid, "b": BOOSTED})
    assert status == 200, answer
    a, b = (column["hits"] for column in answer["columns"])
    rank_b = {h["chunk_id"]: h["rank"] for h in b}
    for hit in a:
        mark, there = hit["mark"], rank_b.get(hit["chunk_id"])
        if there is None:
            assert mark["kind"] == "only"
        else:
            assert mark["other_rank"] == there
            assert mark["kind"] == (
                "same" if there == hit["rank"] else "up" if there > hit["rank"] else "down"
            )
            assert mark["moved"] == abs(there - hit["rank"])
    shared = sum(h["chunk_id"] in rank_b for h in a)
    assert answer["diff"]["shared"] == shared and answer["diff"]["only_a"] == len(a) - shared
    assert answer["diff"]["only_b"] == len(b) - shared
    # the same configuration twice: every hit at the same rank
    status, same = compare(api, {"question": QUESTION, "size": 5, "a": hybrid, "b": hybrid})
    assert status == 200 and same["diff"] == {
        "shared": 5,
        "same_rank": 5,
        "moved": 0,
        "only_a": 0,
        "only_b": 0,
    }


def test_a_pipeline_query_is_confined_to_the_keys_tenant(api: FlaskClient, stack: ApiStack) -> None:
    """Tenant B's index holds 40 NFCorpus abstracts that match the question's words; tenant A's admin
    asking the pipeline over it gets none of them (the tenant filter /v1/search applies)."""
    other = {**PIPELINE, "index": f"{stack.prefix}-b"}
    status, answer = compare(
        api, {"question": "vitamin D and cancer risk", "size": 5, "a": other, "b": other}
    )
    assert status == 200, answer
    assert [c["hits"] for c in answer["columns"]] == [[], []]
    own = {**PIPELINE, "index": f"{stack.prefix}-a"}
    status, answer = compare(api, {"question": "vitamin D and cancer risk", "size": 5, "a": own, "b": own})
    assert status == 200 and answer["columns"][0]["hits"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"question": QUESTION, "a": {"kind": "pipeline", "pipeline": "clinical-median"}, "b": BOOSTED},
            "configuration a: unknown pipeline 'clinical-median'; known: clinical-minmax,",
        ),
        (
            {
                "question": QUESTION,
                "a": PIPELINE,
                "b": {"kind": "search", "options": {"fusion_method": "median"}},
            },
            "configuration b: options.fusion_method: Input should be 'rrf' or 'weighted'",
        ),
        (
            {"question": QUESTION, "a": PIPELINE, "b": {"kind": "search", "options": {"size": 3}}},
            "configuration b: options must not set ['size']",
        ),
        ({"question": QUESTION, "a": PIPELINE}, "invalid request: b: Field required"),
        ({"question": "", "a": PIPELINE, "b": BOOSTED}, "invalid request: question: String should have"),
        (
            {"question": QUESTION, "size": 51, "a": PIPELINE, "b": BOOSTED},
            "invalid request: size: Input should",
        ),
    ],
)
def test_bad_input_is_a_400_naming_it(api: FlaskClient, body: dict[str, Any], message: str) -> None:
    status, answer = compare(api, body)
    assert status == 400 and answer["error"]["message"].startswith(message), answer


def test_a_body_that_is_not_json_is_a_400(api: FlaskClient) -> None:
    answer = api.post(
        "/v1/admin/console/compare", data="{", headers={**headers(ADMIN), "Content-Type": "application/json"}
    )
    assert answer.status_code == 400 and "not valid JSON" in answer.get_json()["error"]["message"]


@pytest.mark.parametrize("path", ["/v1/admin/console/runs", "/v1/admin/console/overview"])
def test_the_data_needs_the_admin_role(api: FlaskClient, path: str) -> None:
    assert api.get(path).status_code == 401
    assert api.get(path, headers=headers("a-search")).status_code == 403
    status, _ = compare(api, {"question": QUESTION, "a": PIPELINE, "b": BOOSTED}, key="a-search")
    assert status == 403


def test_the_page_shell_is_public_and_holds_no_data(api: FlaskClient) -> None:
    page = api.get("/console")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert "Authorization" not in page.get_data(as_text=True)
    # issue 73: not framed, only its own scripts and styles, never sniffed (the browser test runs under it)
    assert page.headers["X-Frame-Options"] == "DENY" and page.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    assert api.get("/console/console.js").mimetype == "text/javascript"
    missing = api.get("/console/secrets.txt")
    assert missing.status_code == 404 and "console.js, console.css" in missing.get_json()["error"]["message"]


def test_runs_over_time_are_plotted_from_real_evaluations(api: FlaskClient, console: ConsoleApp) -> None:
    empty = api.get("/v1/admin/console/runs", headers=headers(ADMIN)).get_json()
    assert (empty["runs"], empty["plot"], empty["index"]) == (0, None, console.runs_index)
    first, second = evaluate(console), evaluate(console)
    answer = api.get("/v1/admin/console/runs", headers=headers(ADMIN)).get_json()
    assert answer["runs"] == 2 * len(CONFIGURATIONS) and answer["metric"] == "ndcg@10"
    assert answer["metrics"] == ["ndcg@10", "recall@10"]
    series = answer["plot"]["series"]
    assert [s["configuration"] for s in series] == CONFIGURATIONS
    for line in series:
        assert [p["run_id"] for p in line["points"]] == [first, second]
        assert [p["is_baseline"] for p in line["points"]] == [True, False]  # the first run is the baseline
        assert [p["x"] for p in line["points"]] == [40.0, 600.0]  # the first and the last time
    recall = api.get("/v1/admin/console/runs?metric=recall@10", headers=headers(ADMIN)).get_json()
    assert recall["metric"] == "recall@10" and len(recall["plot"]["series"]) == len(CONFIGURATIONS)
    unknown = api.get("/v1/admin/console/runs?metric=bleu", headers=headers(ADMIN))
    assert unknown.status_code == 400
    assert (
        unknown.get_json()["error"]["message"]
        == "unknown metric 'bleu'; the stored runs have: ndcg@10, recall@10"
    )
    bad = api.get("/v1/admin/console/runs?limit=x", headers=headers(ADMIN))
    assert bad.status_code == 400 and "limit" in bad.get_json()["error"]["message"]


def test_the_overview_shows_models_pipelines_and_drift(api: FlaskClient) -> None:
    answer = api.get("/v1/admin/console/overview", headers=headers(ADMIN)).get_json()
    states = {m["role"]: m["state"] for m in answer["models"]}
    assert states["dense"] == "DEPLOYED" and states["clinical_route"] == "DEPLOYED"
    assert {"clinical-minmax", "hybrid-rrf", "clinical-rrf-rerank"} <= set(answer["pipelines"])
    by_label = {r["label"]: r for r in answer["resources"]}
    assert by_label["search_pipeline/clinical-minmax"]["state"] == "in sync"
    assert answer["drifted"] == sum(1 for r in answer["resources"] if r["differences"])
