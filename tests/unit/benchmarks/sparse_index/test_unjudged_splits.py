"""The sparse-index benchmark on an index without judgments (``--unjudged``, the MEDLINE sample): which
splits run, the rows computed without qrels (overlap and latency only), and the report and plot that leave
the judged figures out, with hand-computed values."""

from datetime import UTC, datetime

import pytest

from benchmarks.run_stamp import RunStamp
from benchmarks.sparse_index.cli import DEFAULT_SPLITS, SplitPlan, _arguments, planned_splits
from benchmarks.sparse_index.compute import SplitFigures, split_rows
from benchmarks.sparse_index.measure import Configuration, Sample
from benchmarks.sparse_index.render import plotted
from benchmarks.sparse_index.report import Header, render_report
from benchmarks.sparse_index.variants import Variant
from control_plane.config.search_settings import SparseTwoPhaseSettings
from control_plane.config.settings import Settings
from control_plane.query.components import SparseAnn

MEDLINE = ("nfcorpus/dev", "chunks-medline-full")


def _sample(method: str, query_id: str, chunks: list[str], took: float, trip: float) -> Sample:
    hits = tuple((chunk, chunk.split(":")[0], 1.0 / (rank + 1)) for rank, chunk in enumerate(chunks))
    return Sample(Configuration(method, "bi-encoder"), query_id, hits, took, trip)  # type: ignore[arg-type]


# Two queries, depth 3. Exact (rank_features) lists: q1 a:0 b:0 c:0, q2 d:0 e:0. SEISMIC finds a:0 of q1's
# three (1/3) and both of q2's (1): overlap (1/3 + 1) / 2 = 2/3.
SAMPLES = [
    _sample("rank_features", "q1", ["a:0", "b:0", "c:0"], took=10.0, trip=12.0),
    _sample("rank_features", "q2", ["d:0", "e:0"], took=20.0, trip=23.0),
    _sample("seismic", "q1", ["a:0", "x:0"], took=4.0, trip=5.0),
    _sample("seismic", "q2", ["d:0", "e:0"], took=8.0, trip=9.0),
]


def test_only_unjudged_runs_no_default_split_and_both_combine() -> None:
    assert planned_splits(None, None) == [SplitPlan(t, i, judged=True) for t, i in DEFAULT_SPLITS]
    assert planned_splits(None, [MEDLINE]) == [SplitPlan(*MEDLINE, judged=False)]
    assert planned_splits([("scifact/train", "chunks-scifact")], [MEDLINE]) == [
        SplitPlan("scifact/train", "chunks-scifact", judged=True),
        SplitPlan(*MEDLINE, judged=False),
    ]


def test_unjudged_is_a_repeatable_non_test_split_option() -> None:
    args = _arguments(["--unjudged", "nfcorpus/dev=chunks-medline-full", "--limit", "5"], Settings())
    assert args.unjudged == [MEDLINE] and args.split is None and args.limit == 5
    with pytest.raises(SystemExit):
        _arguments(["--unjudged", "nfcorpus/test=chunks-medline-full"], Settings())


def test_rows_without_qrels_hold_overlap_and_latency_only() -> None:
    exact, seismic = split_rows(SAMPLES, None, depth=3)
    assert exact.configuration == Configuration("rank_features", "bi-encoder")
    assert exact.overlap100 == 1.0
    assert (exact.took_p50, exact.took_p95, exact.round_trip_p50, exact.round_trip_p95) == (10, 20, 12, 23)
    assert exact.short_lists == 1  # q2: 2 of 3
    assert seismic.overlap100 == pytest.approx(2 / 3)
    # nearest rank over two values: P50 the first, P95 the second
    assert (seismic.took_p50, seismic.took_p95, seismic.round_trip_p50, seismic.round_trip_p95) == (
        4,
        8,
        5,
        9,
    )
    assert seismic.short_lists == 2
    for row in (exact, seismic):
        assert (row.ndcg10, row.recall100, row.ndcg_delta, row.p_value) == (None, None, None, None)


def _variant(method: str, index: str, chunks: int) -> Variant:
    return Variant(f"sparsebench-{method}-{index}", method, chunks, 1, 2**20, 1.0, 2.0, reused=False)  # type: ignore[arg-type]


def _header(plot: str | None) -> Header:
    context = RunStamp("python -m x", "host", datetime(2026, 1, 1, tzinfo=UTC).isoformat(), 0.5, 0.7)
    two_phase = SparseTwoPhaseSettings(
        enabled=True, prune_ratio=0.4, expansion_rate=5.0, max_window_size=10000
    )
    ann = SparseAnn(top_n=10, heap_factor=1.0, k=100)
    return Header(context, "3.6.0", {"approximate_threshold": 1000}, ann, two_phase, 20, plot)


def _medline() -> SplitFigures:
    variants = (_variant("rank_features", MEDLINE[1], 85_600), _variant("seismic", MEDLINE[1], 85_600))
    return SplitFigures(*MEDLINE, 2, 3, variants, split_rows(SAMPLES, None, depth=3), 9.0, (0, 2))


def test_the_report_shows_an_unjudged_split_with_overlap_and_latency_and_no_ndcg() -> None:
    split = _medline()
    assert not split.judged
    text = render_report([split], _header(None))
    assert "nfcorpus/dev over chunks-medline-full (85,600 chunks, 2 queries, no judgments)" in text
    assert (
        "That index has no relevance judgments, so only overlap@100 with the exact list and latency" in text
    )
    assert "it was not encoded here" not in text  # the small-sizes-only scope
    section = text[text.index("## nfcorpus/dev queries over chunks-medline-full (2 queries, no judgments)") :]
    assert "chunks-medline-full has no relevance judgments: only overlap@100" in section
    assert (
        "| method / query encoding | overlap@100 | took P50 ms | took P95 ms | round trip P50 ms "
        "| round trip P95 ms |" in section
    )
    assert "| rank_features / bi-encoder | 1.000 | 10.0 | 20.0 | 12.0 | 23.0 |" in section
    assert "| seismic / bi-encoder | 0.667 | 4.0 | 8.0 | 5.0 | 9.0 |" in section
    # 9 / 23 = 0.391
    assert (
        "- seismic / bi-encoder: overlap@100 0.667; round-trip P95 9.0 vs 23.0 ms (0.39x), took P50 4.0 vs "
        "10.0 ms." in section
    )
    assert "it changed the ranking of 0 of 2 queries" in section
    assert "nDCG@10" not in section and "Recall@100" not in section and "| — |" not in section


def test_a_judged_split_keeps_its_ndcg_and_the_plot_leaves_the_unjudged_one_out() -> None:
    exact = Sample(Configuration("rank_features", "bi-encoder"), "q1", (("a:0", "a", 3.0),), 5.0, 6.0)
    rows = split_rows([exact], {"q1": {"a": 1}}, depth=1)
    judged = SplitFigures(
        "scifact/train", "chunks-scifact", 1, 1, (_variant("rank_features", "chunks-scifact", 10),), rows, 3.0
    )
    medline = _medline()
    assert judged.judged and plotted([judged, medline]) == [judged]
    assert plotted([medline]) == []
    text = render_report([judged, medline], _header("sparse-index.png"))
    assert "| rank_features / bi-encoder | 1.0000 | exact | 1.0000 | 1.000 | 5.0 | 5.0 | 6.0 | 6.0 |" in text
    assert "nDCG@10 and Recall@100 come from the judged splits, scifact/train over chunks-scifact." in text
    assert "![nDCG@10 against round-trip P95](sparse-index.png)" in text
    assert "The plot leaves out chunks-medline-full: no judgments, so no nDCG@10." in text
