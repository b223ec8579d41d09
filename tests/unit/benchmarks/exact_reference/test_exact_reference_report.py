"""The exact-reference report from hand-made figures: recall against the target, the aligned tables and
which approximation a gap is put down to."""

from benchmarks.exact_reference.figures import Figures, Options, Parity
from benchmarks.exact_reference.report import Header, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.evaluation.exact import FusionParameters


def scores(bm25: float, rrf: float) -> dict[str, dict[str, float]]:
    return {"bm25": {"ndcg@10": bm25, "recall@100": 0.5}, "hybrid-rrf": {"ndcg@10": rrf, "recall@100": 0.5}}


FIGURES = Figures(
    knn_recall=[1.0, 0.9],
    knn_recall_by_ef_search={200: 0.99, 400: 1.0},
    dense_recall_at_depth=[1.0, 1.0],
    dense_recall_at_100_in_runs=[1.0, 0.96],
    parity={"bm25 vs exact": Parity(2, 2, 2, 1234, 1.5e-7, 2e-7, -1e-8)},
    scores={
        "opensearch": scores(0.25, 0.31),
        "exact": scores(0.25, 0.30),
        "stored": scores(0.25, 0.304),
        "replay": scores(0.25, 0.31),
    },
    changed={"bm25": 0, "hybrid-rrf": 3},
)
HEADER = Header(
    run=RunStamp(
        "python -m benchmarks.exact_reference --out r.md",
        "vm",
        "2026-11-22 10:00 UTC",
        0.5,
        0.7,
        seconds=106.2,
    ),
    options=Options("chunks-toy", 300, 100, None),
    test_set_id="toy/test",
    query_count=2,
    snapshot_key="uuid-2-9",
    parameters=FusionParameters(weights={"bm25": 0.3, "splade": 0.3, "dense": 0.4}),
    knn_index="lucene hnsw innerproduct {}",
)


def test_the_header_and_the_knn_recall_against_its_target() -> None:
    text = render_report(FIGURES, HEADER)
    assert text.startswith("# Exact-search reference: chunks-toy on toy/test\n")
    assert (
        "- command: `python -m benchmarks.exact_reference --out r.md`\n"
        "- machine: vm; 2026-11-22 10:00 UTC; 106 s\n"
        "- 1-minute load average before / after: 0.50 / 0.70\n"
        "- 2 queries; snapshot `uuid-2-9`"
    ) in text
    assert (
        "- **Recall@100: 0.9500** (k = 100; target ≥ 0.98: NOT met); worst query 0.90; "
        "1 of 2 queries at 1.00\n" in text
    )
    assert (
        "- the same with a larger HNSW candidate list: ef_search 200: 0.9900, ef_search 400: 1.0000\n" in text
    )
    assert "; ef_search 200 reaches 0.9900 (`index.knn.algo_param.ef_search`" in text


def test_the_tables_right_align_the_figures() -> None:
    text = render_report(FIGURES, HEADER)
    assert (
        "|---|---:|---:|---:|---:|---:|---:|\n"
        "| bm25 vs exact | 2/2 | 2/2 | 1,234 | 1.50e-07 | 2.00e-07 | -1.00e-08 |\n"
    ) in text
    assert (
        "|---|---:|---:|---:|---:|---:|---:|---:|---|\n"
        "| bm25 | 0.2500 | 0.2500 | +0.0000 | 0.5000 | 0.5000 | +0.0000 | 0 | yes |\n"
        "| hybrid-rrf | 0.3100 | 0.3000 | +0.0100 | 0.5000 | 0.5000 | +0.0000 | 3 | **no** |\n"
    ) in text
    assert (
        "|---|---:|---:|---:|---:|\n"
        "| bm25 | +0.0000 | +0.0000 | +0.0000 | n/a |\n"
        "| hybrid-rrf | +0.0100 | +0.0040 | +0.0060 | +0.0000 |\n"
    ) in text


def test_a_gap_is_put_down_to_the_larger_of_its_two_parts() -> None:
    text = render_report(FIGURES, HEADER)
    assert "Configurations more than 0.005 nDCG@10 from their exact reference:\n" in text
    assert (
        "- hybrid-rrf: +0.0100 = +0.0040 from the stored SPLADE precision + +0.0060 from HNSW and float32 "
        "rounding; mostly HNSW (approximate k-NN).\n"
    ) in text
    assert "- bm25:" not in text
