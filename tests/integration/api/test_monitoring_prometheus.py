"""The alert rules and the dashboard against the real stack: a real Prometheus (the pinned Debian
package) scrapes the control API (served over HTTP by the production server) and an inference service
with its fault switch on, with ops/prometheus/rules.yml loaded. After searches of every kind and one
evaluation, every dashboard query returns data through Prometheus' query API and every metric a rule or
panel names is exported; then a fault injected in the inference service drives the error-rate alert to
pending (or firing)."""

from __future__ import annotations

import math
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pytest
from integration.api.stack import ApiStack, headers, secret
from integration.fault_switch import arm, call, faulty_service
from integration.service import free_port
from opensearchpy import OpenSearch
from prometheus_client.parser import text_string_to_metric_families

from control_plane.api.app import create_app
from control_plane.api.auth import key_sha256
from control_plane.config.api_settings import ApiKey
from control_plane.evaluation.settings import load_evaluation_settings
from control_plane.monitoring.assets import RULES_FILE, alert_rules, dashboard, panel_queries
from control_plane.monitoring.local import LocalPrometheus, render_config, start_prometheus, stop_prometheus
from control_plane.monitoring.promql import family_name, metric_names
from control_plane.monitoring.tool import fetch_prometheus
from control_plane.serving import ThreadedServer

T = TypeVar("T")

SEARCHES: list[dict[str, Any]] = [
    {"query": "metformin adverse events in type 2 diabetes"},  # adverse events: section boost + tables
    {"query": "eligibility criteria for the breast cancer trial"},
    {"query": "what percentage of patients had nausea"},  # tabular: table routing
    {"query": "insulin dosage", "components": ["bm25"]},
    {"query": "statin therapy outcomes", "components": ["dense"]},
    {"query": "glucose lowering drug results", "fusion_method": "weighted"},
    {"query": "chemotherapy side effects", "rerank": True},
    {"query": "heart failure treatment", "rerank": True},
]


@pytest.fixture(scope="module")
def monitored(stack: ApiStack, client: OpenSearch, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """(API URL, inference URL, Prometheus), the API's query encoding going to a faultable service."""
    tool = fetch_prometheus()
    runs_index = f"eval-runs-{stack.prefix}"
    with faulty_service() as inference:
        keys = (
            *stack.settings.api.keys,
            ApiKey(sha256=key_sha256(secret("b-admin")), tenant="tenant-b", role="admin", name="b-admin"),
        )
        settings = stack.settings.model_copy(
            update={
                "api": stack.settings.api.model_copy(update={"keys": keys}),
                "models": stack.settings.models.model_copy(update={"service_url": inference}),
            }
        )
        evaluation = load_evaluation_settings(
            environ={
                "BIOHYBRID_EVAL__INDICES__NFCORPUS": f"{stack.prefix}-b",
                "BIOHYBRID_EVAL__STORE__INDEX": runs_index,
            }
        )
        server = ThreadedServer(
            create_app(settings, client, evaluation=evaluation), "127.0.0.1", 0, threads=4
        )
        serving = threading.Thread(target=server.run, daemon=True)
        serving.start()
        state = tmp_path_factory.mktemp("prometheus")
        try:
            config = render_config(
                {"api": [f"127.0.0.1:{server.port}"], "inference": [inference.removeprefix("http://")]},
                [Path(RULES_FILE)],
                interval_s=1,
            )
            prometheus = start_prometheus(tool, config, state, free_port())
            yield f"http://127.0.0.1:{server.port}", inference, prometheus
        finally:
            stop_prometheus(state)
            server.close()
            client.indices.delete(index=runs_index, ignore_unavailable=True)


def _call(url: str, key: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """The API over HTTP with ``key``'s credentials: POST with a body, else GET."""
    return call(url, "GET" if body is None else "POST", body, headers=headers(key), timeout_s=120)


def _eventually(probe: Callable[[], T | None], timeout_s: float, what: str) -> T:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"{what} within {timeout_s:g} s")


def _data(prometheus: LocalPrometheus, expr: str) -> list[dict[str, Any]]:
    """The query's series with a finite value (NaN, from a 0/0 rate, is not data)."""
    return [series for series in prometheus.query(expr) if math.isfinite(float(series["value"][1]))]


def _scraped(prometheus: LocalPrometheus, job: str) -> list[dict[str, Any]]:
    return [t for t in prometheus.targets() if t["labels"]["job"] == job and t["health"] == "up"]


@pytest.fixture(scope="module")
def traffic(monitored: Any) -> Any:
    """Searches of every kind, then an evaluation with a rerank variant (5 NFCorpus dev queries)."""
    api, _, prometheus = monitored
    # Two rounds, scraped in between: a labelled series is born with its first count, and rate() sees
    # only increases after a series' first sample (as in production, where traffic never stops).
    for suffix in ("", " in adults"):
        for body in SEARCHES:
            status, answer = _call(
                f"{api}/v1/search", "a-search", {**body, "query": body["query"] + suffix, "size": 5}
            )
            assert status == 200, answer
        _eventually(
            partial(_data, prometheus, "biohybrid_api_searches_total"), 30, "a scrape after the searches"
        )
        time.sleep(2)
    status, job = _call(
        f"{api}/v1/evaluate",
        "b-admin",
        {
            "test_set_id": "nfcorpus/dev",
            "configurations": ["hybrid-rrf", "hybrid-minmax", "hybrid-rrf+rerank"],
            "limit": 5,
        },
    )
    assert status == 202, job

    def finished() -> dict[str, Any] | None:
        _, state = _call(f"{api}/v1/admin/jobs/{job['id']}", "b-admin")
        return state if state["state"] in {"done", "failed"} else None

    final = _eventually(finished, 300, "the evaluation job to finish")
    assert final["state"] == "done", final
    return monitored


def test_every_metric_a_rule_or_panel_uses_is_exported(traffic: Any) -> None:
    api, inference, _ = traffic
    exported: set[str] = set()
    for url in (api, inference):
        with urllib.request.urlopen(f"{url}/metrics", timeout=10) as answer:
            exported |= {family.name for family in text_string_to_metric_families(answer.read().decode())}
    used = {name for rule in alert_rules() for name in metric_names(rule.expr)} | {
        name for query in panel_queries(dashboard()) for name in metric_names(query.expr)
    }
    assert len(used) >= 10
    assert {name for name in used if family_name(name) not in exported} == set()


def test_every_panel_query_returns_data_through_prometheus(traffic: Any) -> None:
    prometheus: LocalPrometheus = traffic[2]
    for job in ("api", "inference"):
        _eventually(partial(_scraped, prometheus, job), 30, f"Prometheus to scrape {job}")
    for query in panel_queries(dashboard()):
        found = _eventually(
            partial(_data, prometheus, query.expr),
            60,
            f"data for {query.panel!r} {query.ref_id}: {query.expr}",
        )
        assert found, query
    boosted = {s["metric"]["intent"] for s in prometheus.query("biohybrid_api_boosted_searches_total > 0")}
    assert "adverse_events" in boosted
    assert prometheus.query("biohybrid_api_table_routed_searches_total > 0")
    assert {r["name"] for r in prometheus.rules()} == {rule.name for rule in alert_rules()}


def test_an_injected_inference_fault_drives_the_error_rate_alert(traffic: Any) -> None:
    api, inference, prometheus = traffic
    assert not [a for a in prometheus.alerts() if a["labels"]["alertname"] == "BiohybridErrorRateHigh"]
    # One failed call first, scraped, so the 503 series exists before the outage proper: rate() sees
    # only increases after a series' first sample (a real outage keeps failing; this one is brief).
    arm(inference, 1, endpoints=("embeddings",))
    status, answer = _call(
        f"{api}/v1/search", "a-search", {"query": "fault zero cardiac arrhythmia", "size": 3}
    )
    assert status == 200 and "dense" not in answer["metadata"]["components_used"], answer
    _eventually(
        partial(_data, prometheus, 'biohybrid_inference_requests_total{status="503"}'),
        30,
        "the first 503 scraped",
    )
    time.sleep(2)
    arm(inference, 1000, endpoints=("embeddings", "sparse"))
    for i in range(12):  # distinct queries: nothing comes from the query cache
        status, answer = _call(
            f"{api}/v1/search", "a-search", {"query": f"fault {i} cardiac arrhythmia", "size": 3}
        )
        assert status == 200, answer  # the API degrades to BM25 (its breakers open after 5 failures)

    def error_alert() -> list[dict[str, Any]] | None:
        alerts = [a for a in prometheus.alerts() if a["labels"]["alertname"] == "BiohybridErrorRateHigh"]
        return alerts or None

    alerts = _eventually(error_alert, 60, "the error-rate alert to be pending or firing")
    assert {a["labels"]["job"] for a in alerts} == {"inference"}
    assert {a["state"] for a in alerts} <= {"pending", "firing"}
    assert float(alerts[0]["value"]) > 0.05
