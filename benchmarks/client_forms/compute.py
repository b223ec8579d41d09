"""Pure summaries: each form's distance from the plain form, and the targets of issue 47."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.clinical_pipelines.compute import Latency

# Targets fixed in issue 47, before any test split was read.
WITHIN_PLAIN: float = 0.005  # every form's nDCG@10 at most this far from the plain form's
ADDED_P95_MS: float = 15.0  # the plain form's P95 over the explicit hybrid query's


@dataclass(frozen=True)
class FormVerdict:
    split: str
    fusion: str
    form: str
    ndcg: float
    plain: float

    @property
    def delta(self) -> float:
        return self.ndcg - self.plain

    @property
    def met(self) -> bool:
        return abs(self.delta) <= WITHIN_PLAIN


def added_p95(plain_form: Latency, explicit: Latency) -> float:
    """Milliseconds the plain form adds at P95 over the explicit query."""
    return plain_form.p95 - explicit.p95
