"""The runs against the stack: each question through a pipeline with ``verbose_pipeline`` (OpenSearch's own
per-processor milliseconds), temporary copies of the pipeline that fuse a smaller routing window, and the
route model's time read from the inference service's metrics."""

from __future__ import annotations

import copy
import re
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Final

from opensearchpy import OpenSearch
from prometheus_client.parser import text_string_to_metric_families

from benchmarks.clinical_pipelines.measure import LEAN_SOURCE

K: Final = 10
ROUTE_ENDPOINT: Final = "clinical_route"
_WINDOW_SCRIPT: Final = re.compile(r"ctx\._source\.size < (\d+)")


def verbose_steps(
    client: OpenSearch, index: str, pipeline: str, texts: Sequence[str]
) -> list[list[dict[str, Any]]]:
    """Each question's ``processor_results`` through ``pipeline`` (the plain form, a page of 10); the first
    question warms up and is not kept."""
    kept: list[list[dict[str, Any]]] = []
    for number, text in enumerate(texts):
        body = {"size": K, "query": {"match": {"text": text}}, "_source": LEAN_SOURCE}
        answer = client.search(
            index=index, params={"search_pipeline": pipeline, "verbose_pipeline": "true"}, body=body
        )
        if number > 0:
            kept.append(answer["processor_results"])
    return kept


def installed_window(pipeline: Mapping[str, Any]) -> int:
    """The routing window the installed pipeline fuses (its size script's bound)."""
    for processor in pipeline.get("request_processors", []):
        found = _WINDOW_SCRIPT.search(processor.get("script", {}).get("source", ""))
        if found:
            return int(found.group(1))
    raise ValueError("the pipeline has no routing-window script (is it a clinical pipeline?)")


def with_window(pipeline: Mapping[str, Any], window: int) -> dict[str, Any]:
    """A copy of the pipeline that fuses ``window`` hits for routing instead of its own."""
    body = copy.deepcopy(dict(pipeline))
    for processor in body.get("request_processors", []):
        script = processor.get("script")
        if script is not None and _WINDOW_SCRIPT.search(script.get("source", "")):
            script["source"] = re.sub(r"\b\d+\b", str(window), script["source"])
    body["description"] = f"temporary copy of a clinical pipeline, routing window {window}"
    return body


@contextmanager
def window_pipelines(
    client: OpenSearch, pipeline: str, windows: Sequence[int], copy_prefix: str = "bench-steps"
) -> Iterator[dict[int, str]]:
    """Pipeline name per routing window: the installed pipeline for its own window, temporary copies
    (``<copy_prefix>-window-<window>``, removed after) for the others."""
    installed = client.search_pipeline.get(id=pipeline)[pipeline]
    own = installed_window(installed)
    names = {window: pipeline if window == own else f"{copy_prefix}-window-{window}" for window in windows}
    made = [name for name in names.values() if name != pipeline]
    try:
        for window, name in names.items():
            if name != pipeline:
                client.search_pipeline.put(id=name, body=with_window(installed, window))
        yield names
    finally:
        for name in made:
            client.search_pipeline.delete(id=name, ignore=[404])


def route_model_reading(service_url: str) -> tuple[float, float]:
    """(seconds, calls) the inference service has spent answering the clinical route model so far."""
    with urllib.request.urlopen(f"{service_url.rstrip('/')}/metrics", timeout=10) as answer:
        text = answer.read().decode("utf-8")
    seconds = calls = 0.0
    for family in text_string_to_metric_families(text):
        if family.name != "biohybrid_inference_request_seconds":
            continue
        for sample in family.samples:
            if sample.labels.get("endpoint") != ROUTE_ENDPOINT:
                continue
            if sample.name.endswith("_sum"):
                seconds += sample.value
            elif sample.name.endswith("_count"):
                calls += sample.value
    return seconds, calls
