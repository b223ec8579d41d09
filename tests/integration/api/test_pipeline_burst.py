"""Searches sent at once, as a RAG service sends them straight to OpenSearch: twenty concurrent clients
(each its own connection) through the clinical pipeline and the plain hybrid one all get an answer, and
the inference service refuses none of OpenSearch's model calls (a burst waits in its model queues, and
ml-commons opens no more connections than OpenSearch's share of the service's threads)."""

from __future__ import annotations

import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests
from integration.api.stack import ApiStack

from control_plane.cluster.client import opensearch_session
from control_plane.query.components import text_hybrid_query

pytestmark = pytest.mark.integration
CLIENTS = 20
# distinct questions, so nothing is answered from a cache
TOPICS = (
    "breast cancer", "asthma", "type 2 diabetes", "hypertension", "heart failure", "depression",
    "rheumatoid arthritis", "HIV", "hepatitis C", "obesity", "migraine", "psoriasis", "COPD",
    "lung cancer", "prostate cancer", "multiple sclerosis", "epilepsy", "osteoporosis", "anemia", "stroke",
)  # fmt: skip
QUESTIONS = tuple(f"side effects of the treatment in {topic} trials" for topic in TOPICS)


def _refusals(service_url: str) -> float:
    with urllib.request.urlopen(f"{service_url}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    prefix = 'biohybrid_inference_caller_refusals_total{caller="opensearch"'
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))


def _burst(stack: ApiStack, pipeline: str, bodies: list[dict[str, Any]]) -> list[tuple[int, str, float]]:
    """Every body sent at once, one client (session) each: status, error text, seconds."""
    url = f"{stack.settings.opensearch.url.rstrip('/')}/{stack.prefix}-a/_search?search_pipeline={pipeline}"
    sessions = [opensearch_session(stack.settings.opensearch) for _ in bodies]

    def send(pair: tuple[requests.Session, dict[str, Any]]) -> tuple[int, str, float]:
        session, body = pair
        began = time.monotonic()
        answer = session.post(url, json=body, timeout=120)
        error = "" if answer.status_code == 200 else answer.text[:300]
        return answer.status_code, error, time.monotonic() - began

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(send, zip(sessions, bodies, strict=True)))


@pytest.mark.parametrize(
    ("pipeline", "query_of"),
    [
        ("clinical-minmax", lambda text: {"match": {"text": text}}),
        ("hybrid-minmax", lambda text: text_hybrid_query(text, pagination_depth=100)),
    ],
)
def test_twenty_concurrent_searches_through_a_pipeline_all_answer(
    stack: ApiStack, pipeline: str, query_of: Any
) -> None:
    before = _refusals(stack.settings.models.service_url)
    source = {"excludes": ["embedding", "sparse_terms"]}
    bodies = [{"size": 5, "_source": source, "query": query_of(q)} for q in QUESTIONS[:CLIENTS]]
    answers = _burst(stack, pipeline, bodies)
    failed = [(status, error) for status, error, _ in answers if status != 200]
    assert not failed, f"{len(failed)} of {CLIENTS} failed: {failed[:3]}"
    assert max(seconds for *_, seconds in answers) < 60
    assert _refusals(stack.settings.models.service_url) == before
