"""The stored form of a run fits the strict eval-runs mapping (a field it lacks would be refused)."""

from __future__ import annotations

from control_plane.config.settings import load_settings
from control_plane.evaluation.runner import SuiteResult
from control_plane.evaluation.store import TEMPLATE_NAME, RunContext, document_id, run_document
from control_plane.resources.catalog import ResourceKind, load_resources

CONTEXT = RunContext(
    index="chunks-nfcorpus",
    tenant_id="default",
    model_versions={"dense": {"name": "biohybrid-dense-minilm", "model_id": "m1", "state": "DEPLOYED"}},
    template_versions={"version": "0.1.0", "sha256": "abc"},
    host="test-host",
    command="biohybrid evaluate nfcorpus/dev",
)


def _mapping() -> dict[str, object]:
    [template] = [
        r
        for r in load_resources(load_settings(environ={}))
        if r.kind is ResourceKind.INDEX_TEMPLATE and r.name == TEMPLATE_NAME
    ]
    assert template.body["index_patterns"] == ["eval-runs*"]
    mappings: dict[str, object] = template.body["template"]["mappings"]
    return mappings


def test_document_fields_are_the_mapping_fields(toy_suite: SuiteResult) -> None:
    mappings = _mapping()
    assert mappings["dynamic"] == "strict"
    properties = mappings["properties"]
    assert isinstance(properties, dict)
    document = run_document(toy_suite, toy_suite.results[1], CONTEXT, is_baseline=False)
    assert set(document) == set(properties)


def test_document_values(toy_suite: SuiteResult) -> None:
    bm25, hybrid = toy_suite.results
    baseline_doc = run_document(toy_suite, bm25, CONTEXT, is_baseline=True)
    document = run_document(toy_suite, hybrid, CONTEXT, is_baseline=False)
    assert document["configuration"] == "hybrid-rrf" and document["dataset"] == "nfcorpus/dev[:3]"
    assert document["corpus"] == "nfcorpus" and document["index"] == "chunks-nfcorpus"
    assert document["timestamp"] == "2025-01-01T00:00:00+00:00" and document["duration_s"] == 65.0
    assert document["metrics"] == {"ndcg@10": 0.3, "recall@100": 0.6}
    assert document["significance"]["ndcg@10"] == {
        "mean_difference": 0.05,
        "p_value": 0.01,
        "n": 3,
        "exact": True,
    }
    assert document["significance_against"] == "bm25" and baseline_doc["significance_against"] is None
    assert baseline_doc["is_baseline"] is True
    assert document["configuration_spec"]["components"] == ["bm25", "splade", "dense"]
    assert document_id(toy_suite.run_id, "hybrid-rrf") == "20250101T000000Z-abcdef12:hybrid-rrf"
