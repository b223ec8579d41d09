"""The sparse-index benchmark's pure parts: request bodies per configuration (hand-written JSON), the
figures from samples, the variant index body rendered from the template, and the report."""

from datetime import UTC, datetime

from benchmarks.run_stamp import RunStamp
from benchmarks.sparse_index.compute import (
    SplitFigures,
    doc_only_vs_bi_encoder,
    document_run,
    overlap,
    split_rows,
)
from benchmarks.sparse_index.measure import (
    CONFIGURATIONS,
    Configuration,
    EncodedQuery,
    Sample,
    Targets,
    request_for,
)
from benchmarks.sparse_index.report import Header, render_report
from benchmarks.sparse_index.variants import Variant, index_body, method_settings
from control_plane.config.search_settings import SparseTwoPhaseSettings
from control_plane.config.settings import Settings
from control_plane.query.components import SparseAnn

QUERY = EncodedQuery("q1", "statin myopathy", {"statin": 1.5}, {"2424": 1.5})
TARGETS = Targets(
    rank_features_index="rf",
    seismic_index="se",
    doc_only_model_id="tok",
    seismic=SparseAnn(top_n=10, heap_factor=1.0, k=100),
    two_phase=SparseTwoPhaseSettings(
        enabled=True, prune_ratio=0.4, expansion_rate=5.0, max_window_size=10000
    ),
    depth=100,
)
BASE = {"size": 100, "track_total_hits": False, "_source": ["doc_id"]}
ANN = {"top_n": 10, "heap_factor": 1.0, "k": 100}
TWO_PHASE = {
    "request_processors": [
        {
            "neural_sparse_two_phase_processor": {
                "enabled": True,
                "two_phase_parameter": {"prune_ratio": 0.4, "expansion_rate": 5.0, "max_window_size": 10000},
            }
        }
    ]
}


def test_each_configuration_sends_its_own_request() -> None:
    bodies = {c: request_for(c, QUERY, TARGETS) for c in CONFIGURATIONS}
    assert bodies[Configuration("rank_features", "bi-encoder")] == (
        "rf",
        {**BASE, "query": {"neural_sparse": {"sparse_terms": {"query_tokens": {"statin": 1.5}}}}},
    )
    assert bodies[Configuration("rank_features", "doc-only")] == (
        "rf",
        {
            **BASE,
            "query": {
                "neural_sparse": {"sparse_terms": {"query_text": "statin myopathy", "model_id": "tok"}}
            },
        },
    )
    assert bodies[Configuration("seismic", "bi-encoder")] == (
        "se",
        {
            **BASE,
            "query": {
                "neural_sparse": {"sparse_terms": {"query_tokens": {"2424": 1.5}, "method_parameters": ANN}}
            },
        },
    )
    assert bodies[Configuration("seismic", "doc-only")] == (
        "se",
        {
            **BASE,
            "query": {
                "neural_sparse": {
                    "sparse_terms": {
                        "query_text": "statin myopathy",
                        "model_id": "tok",
                        "method_parameters": ANN,
                    }
                }
            },
        },
    )
    assert bodies[Configuration("two-phase", "bi-encoder")] == (
        "rf",
        {
            **BASE,
            "query": {"neural_sparse": {"sparse_terms": {"query_tokens": {"statin": 1.5}}}},
            "search_pipeline": TWO_PHASE,
        },
    )


def _sample(method: str, hits: list[tuple[str, str, float]], took: float = 5.0) -> Sample:
    return Sample(Configuration(method, "bi-encoder"), "q1", tuple(hits), took, took + 1)  # type: ignore[arg-type]


def test_documents_by_best_chunk_and_overlap_with_the_exact_list() -> None:
    exact = _sample("rank_features", [("a:0", "a", 3.0), ("b:0", "b", 2.0), ("a:1", "a", 1.0)])
    assert document_run([exact]) == {"q1": {"a": 3.0, "b": 2.0}}
    assert overlap(["a:0", "c:0"], ["a:0", "b:0"]) == 0.5
    approx = _sample("seismic", [("b:0", "b", 2.0), ("c:0", "c", 1.5)], took=2.0)
    rows = split_rows([exact, approx], {"q1": {"a": 1, "b": 1}}, depth=3)
    exact_row, approx_row = rows
    assert exact_row.overlap100 == 1.0 and exact_row.ndcg10 == 1.0
    assert approx_row.overlap100 == 1 / 3  # b:0 of the exact a:0, b:0, a:1
    assert approx_row.recall100 == 0.5
    assert approx_row.took_p50 == 2.0 and approx_row.round_trip_p95 == 3.0
    assert approx_row.short_lists == 1


def test_the_variant_index_is_the_rendered_chunk_template() -> None:
    settings = method_settings(Settings(), "seismic", {"approximate_threshold": 1000, "n_postings": None})
    body = index_body(settings)
    assert body["settings"]["index"]["sparse"] is True
    assert body["settings"]["index"]["number_of_shards"] == 1
    assert body["mappings"]["properties"]["sparse_terms"] == {
        "type": "sparse_vector",
        "method": {
            "name": "seismic",
            "parameters": {"cluster_ratio": 0.1, "summary_prune_ratio": 0.4, "approximate_threshold": 1000},
        },
    }
    assert "knn" not in body["settings"]["index"]  # one plugin codec per index
    assert body["mappings"]["properties"]["embedding"] == {"type": "object", "enabled": False}
    plain = index_body(method_settings(Settings(), "rank_features", {}))
    assert plain["settings"]["index"]["knn"] is True and "sparse" not in plain["settings"]["index"]
    assert plain["mappings"]["properties"]["embedding"]["method"]["engine"] == "lucene"


def test_the_report_names_the_scope_and_each_configuration() -> None:
    exact = _sample("rank_features", [("a:0", "a", 3.0)])
    rows = split_rows([exact], {"q1": {"a": 1}}, depth=1)
    variant = Variant("sparsebench-rank_features-x", "rank_features", 10, 1, 2**20, 1.0, 2.0, reused=False)
    split = SplitFigures("nfcorpus/dev", "x", 1, 1, (variant,), rows, 3.0)
    context = RunStamp("python -m x", "host", datetime(2026, 1, 1, tzinfo=UTC).isoformat(), 0.5, 0.7)
    header = Header(
        context, "3.6.0", {"approximate_threshold": 1000}, TARGETS.seismic, TARGETS.two_phase, 20, None
    )
    text = render_report([split], header)
    assert "~85k-chunk MEDLINE sample" in text
    assert "| rank_features / bi-encoder | 1.0000 | exact |" in text
    assert "- command: `python -m x`" in text


def test_doc_only_is_compared_with_bi_encoder_per_method() -> None:
    bi = Sample(
        Configuration("rank_features", "bi-encoder"), "q1", (("b:0", "b", 2.0), ("a:0", "a", 1.0)), 1, 2
    )
    doc = Sample(Configuration("rank_features", "doc-only"), "q1", (("a:0", "a", 2.0),), 1, 2)
    [(method, delta, p)] = doc_only_vs_bi_encoder([bi, doc], {"q1": {"a": 1}})
    assert method == "rank_features" and delta > 0 and 0 <= p <= 1
