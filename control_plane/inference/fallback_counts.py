"""The inference service's rerank fallbacks as a client reads them: the only record the ``-rerank``
pipelines keep of a rerank that answered the fused order (their hits carry no note of it)."""

from __future__ import annotations

import urllib.request
from collections.abc import Mapping

from prometheus_client.parser import text_string_to_metric_families

FAMILY = "biohybrid_inference_rerank_fallbacks"


def rerank_fallback_counts(service_url: str, model: str, timeout_s: float = 2.0) -> dict[str, float]:
    """reason -> fallbacks counted so far for ``model`` (``biohybrid_inference_rerank_fallbacks_total``);
    OSError when the service's /metrics cannot be read."""
    with urllib.request.urlopen(f"{service_url.rstrip('/')}/metrics", timeout=timeout_s) as answer:
        text = answer.read().decode()
    return {
        sample.labels["reason"]: sample.value
        for family in text_string_to_metric_families(text)
        if family.name == FAMILY
        for sample in family.samples
        if sample.name.endswith("_total") and sample.labels.get("model") == model
    }


def counted_since(before: Mapping[str, float], after: Mapping[str, float]) -> dict[str, int]:
    """The fallbacks counted between two readings, by reason (reasons that did not move left out)."""
    moved = {reason: int(after[reason] - before.get(reason, 0.0)) for reason in after}
    return {reason: count for reason, count in sorted(moved.items()) if count > 0}
