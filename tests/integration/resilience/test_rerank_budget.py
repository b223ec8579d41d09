"""A rerank with a budget never fails the search that asked for it (issue 70, item 3), on the real service:
the cross-encoder is made slow for real (the fault switch stalls its worker, so its batch and every request
queued behind it wait), its queue is filled for real (a service started with two queue places), and a GPU
is required where there is none. Each time the answer is a 200 in the documents' own (fused) order, at the
budget (long before the stall ends) or at once, saying why (headers) and counted
(biohybrid_inference_rerank_fallbacks_total). The service is this module's own, started with the fault
switch on (the one `make node-up` starts has it off)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from integration.fault_switch import disarm, faulty_service, rerank_fallbacks, slow_down

from control_plane.config.settings import load_settings

pytestmark = pytest.mark.integration

MODEL = load_settings(environ={}).models.rerank
DOCUMENTS = [
    f"Passage {i}: warfarin and aspirin together raise the risk of serious bleeding in atrial fibrillation"
    if i % 3 == 0
    else f"Passage {i}: enrolment criteria of a trial in type 2 diabetes with metformin"
    for i in range(30)
]
FUSED = list(range(len(DOCUMENTS)))
SLACK_S = 1.0
"""An answer at the budget comes within this of it, still far from the 3 s stall's end, on a loaded 2-core
CI machine; how close (the issue's + 50 ms) is a benchmark's figure, not a timed test's."""
AT_ONCE_S = 0.5  # a refusal at the door: a third of the 1.5 s budget it did not wait for


@pytest.fixture(scope="module")
def small_queue() -> Iterator[str]:
    """The real service with its fault switch on and two queue places per model (so a burst fills it)."""
    with faulty_service(options=("--queue-size", "2")) as url:
        yield url


@pytest.fixture
def service(small_queue: str) -> Iterator[str]:
    yield small_queue
    disarm(small_queue)
    _wait_idle(small_queue)


def _rerank(
    url: str, budget_ms: int | None, requires_gpu: bool = False
) -> tuple[int, dict[str, str], Any, float]:
    """One rerank the way the connector sends it: status, headers, answer and the seconds it took."""
    body: dict[str, Any] = {
        "query": "warfarin bleeding risk",
        "documents": DOCUMENTS,
        "depth": len(DOCUMENTS),
        "model_weight": 0.4,
        "requires_gpu": requires_gpu,
    }
    if budget_ms is not None:
        body["budget_ms"] = budget_ms
    request = urllib.request.Request(
        f"{url}/v1/rerank/{MODEL}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, headers, payload = response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as err:
        status, headers, payload = err.code, dict(err.headers), json.loads(err.read())
    return status, headers, payload, time.perf_counter() - started


def _order(answer: list[dict[str, Any]]) -> list[int]:
    return [int(entry["index"]) for entry in answer]


def _wait_idle(url: str) -> None:
    """Until the model answers a rerank again (a stall armed by the test has run out)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, headers, _, _ = _rerank(url, 20_000)
        if status == 200 and headers.get("X-Biohybrid-Reranked") == "true":
            return
    pytest.fail("the rerank model did not answer again within 60 s")


def test_a_model_slower_than_the_budget_answers_the_fused_order_within_it(service: str) -> None:
    status, headers, answer, _ = _rerank(service, 20_000)
    assert status == 200 and headers["X-Biohybrid-Reranked"] == "true"
    assert _order(answer) != FUSED  # the model reorders these documents: a fallback is visible
    before = rerank_fallbacks(service, MODEL)
    slow_down(service, calls=1, delay_ms=3000)
    budget_ms = 400
    status, headers, answer, took_s = _rerank(service, budget_ms)
    assert status == 200
    assert headers["X-Biohybrid-Reranked"] == "false"
    assert headers["X-Biohybrid-Rerank-Fallback"] == "timeout"
    assert _order(answer) == FUSED
    assert took_s < budget_ms / 1000 + SLACK_S, took_s
    # a request queued behind the stalled model misses its budget too, and is answered the same way
    status, headers, answer, took_s = _rerank(service, budget_ms)
    assert (status, headers["X-Biohybrid-Rerank-Fallback"], _order(answer)) == (200, "timeout", FUSED)
    assert took_s < budget_ms / 1000 + SLACK_S, took_s
    after = rerank_fallbacks(service, MODEL)
    assert after["timeout"] - before["timeout"] == 2


def test_a_full_queue_answers_the_fused_order_at_once(service: str) -> None:
    before = rerank_fallbacks(service, MODEL)
    slow_down(service, calls=1, delay_ms=3000)
    answers: list[tuple[int, dict[str, str], Any, float]] = []

    def send(budget_ms: int) -> None:
        answers.append(_rerank(service, budget_ms))

    first = threading.Thread(target=send, args=(20_000,))  # takes the model's worker, which stalls
    first.start()
    time.sleep(0.5)
    queued = [threading.Thread(target=send, args=(1500,)) for _ in range(2)]  # the two queue places
    for thread in queued:
        thread.start()
    time.sleep(0.5)
    status, headers, answer, took_s = _rerank(service, 1500)  # no place left
    assert status == 200
    assert headers["X-Biohybrid-Reranked"] == "false"
    assert headers["X-Biohybrid-Rerank-Fallback"] == "overloaded"
    assert _order(answer) == FUSED
    assert took_s < AT_ONCE_S, took_s  # refused at the door, not after the budget
    for thread in [first, *queued]:
        thread.join(30)
    assert all(status == 200 for status, _, _, _ in answers)
    queued_answers = [a for a in answers if a[1]["X-Biohybrid-Reranked"] == "false"]
    assert [a[1]["X-Biohybrid-Rerank-Fallback"] for a in queued_answers] == ["timeout", "timeout"]
    assert all(a[3] < 1.5 + SLACK_S for a in queued_answers), [a[3] for a in queued_answers]
    after = rerank_fallbacks(service, MODEL)
    assert after["overloaded"] - before["overloaded"] == 1
    assert after["timeout"] - before["timeout"] == 2


def test_a_rerank_that_requires_a_gpu_answers_the_fused_order_at_once_on_cpu(service: str) -> None:
    before = rerank_fallbacks(service, MODEL)
    status, headers, answer, took_s = _rerank(service, 1500, requires_gpu=True)
    assert status == 200
    assert (headers["X-Biohybrid-Reranked"], headers["X-Biohybrid-Rerank-Fallback"]) == (
        "false",
        "gpu_unavailable",
    )
    assert _order(answer) == FUSED
    assert took_s < AT_ONCE_S, took_s  # no model call
    assert rerank_fallbacks(service, MODEL)["gpu_unavailable"] - before["gpu_unavailable"] == 1


def test_without_a_budget_a_slow_model_is_waited_for(service: str) -> None:
    """Only a search's rerank (it sends a budget) falls back: another caller (the Haystack ranker, a
    script) gets the model's order however slow it is, within the service's own request timeout."""
    slow_down(service, calls=1, delay_ms=100)
    status, headers, answer, _ = _rerank(service, None)
    assert (
        status == 200 and headers["X-Biohybrid-Reranked"] == "true"
    )  # slow but within the service's timeout
    assert _order(answer) != FUSED
