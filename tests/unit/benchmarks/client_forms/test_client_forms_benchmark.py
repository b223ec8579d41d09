"""The client-forms benchmark's pure parts: the distance from the plain form, the cut-down pipelines of
the latency breakdown, and every form's body read as the same question by the clinical rewrite."""

from __future__ import annotations

import pytest

from benchmarks.client_forms.compute import FormVerdict, added_p95
from benchmarks.client_forms.forms import FORMS
from benchmarks.client_forms.measure import _cut_down, kept_to_sources
from benchmarks.clinical_pipelines.compute import Latency
from control_plane.clinical.client_forms import client_query


def test_a_form_is_within_the_target_by_its_absolute_difference() -> None:
    assert FormVerdict("s", "rrf", "f", 0.700, 0.704).met
    assert not FormVerdict("s", "rrf", "f", 0.710, 0.704).met
    assert FormVerdict("s", "rrf", "f", 0.710, 0.704).delta == pytest.approx(0.006)
    assert added_p95(Latency(10, 80, 120), Latency(10, 60, 100)) == 20


def test_every_form_carries_the_same_question() -> None:
    for name, form in FORMS.items():
        assert client_query(form("side effects")["query"]).text == "side effects", name


CLINICAL = {
    "request_processors": [
        {"ml_inference": {}},
        {"oversample": {}},
        {"script": {}},
        {"neural_query_enricher": {}},
    ],
    "phase_results_processors": [{"normalization-processor": {}}],
    "response_processors": [{"rerank": {}}, {"ml_inference": {}}, {"truncate_hits": {}}],
}


def test_the_cut_down_pipelines_keep_the_rewrite_and_fusion_and_drop_routing() -> None:
    rewrite_only = _cut_down(CLINICAL, window=False)
    assert [next(iter(p)) for p in rewrite_only["request_processors"]] == [
        "ml_inference",
        "neural_query_enricher",
    ]
    assert rewrite_only["response_processors"] == []
    assert rewrite_only["phase_results_processors"] == CLINICAL["phase_results_processors"]
    window = _cut_down(CLINICAL, window=True)
    assert len(window["request_processors"]) == 4 and window["response_processors"] == [{"truncate_hits": {}}]


def _hit(chunk: str, source: str) -> dict[str, object]:
    return {"_id": chunk, "_source": {"source": source}}


def test_the_reference_of_a_source_filter_keeps_the_plain_order_of_those_sources() -> None:
    hits = [
        _hit("m1", "medline"),
        _hit("c1", "ctgov"),
        _hit("p1", "pmc"),
        _hit("m2", "medline"),
        _hit("c2", "ctgov"),
    ]
    assert kept_to_sources(hits, ("ctgov", "pmc")) == ["c1", "p1", "c2"]
    assert kept_to_sources(hits, ("ctgov", "pmc"), k=2) == ["c1", "p1"]
    assert kept_to_sources(hits, ("nfcorpus",)) == []
