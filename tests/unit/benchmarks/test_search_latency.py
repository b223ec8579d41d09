"""The latency benchmark's pure parts: summaries, query drawing, request bodies,
the spec's bars and the hybrid / bm25 ratios."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from control_plane.benchmarks.search_latency import (
    RunRecord,
    Sample,
    bar_rows,
    bm25_baseline,
    degradation_codes,
    draw_queries,
    ratio,
    ratio_rows,
    render_report,
    rotated,
    search_body,
    spec_bar_ms,
    summarise,
    text_request,
)
from control_plane.evaluation.configurations import EvalConfiguration
from control_plane.testsets.catalog import Query

BM25 = EvalConfiguration(name="bm25", components=("bm25",))
RRF = EvalConfiguration(name="hybrid-rrf", components=("bm25", "splade", "dense"))
MINMAX = EvalConfiguration(
    name="hybrid-minmax",
    components=("bm25", "splade", "dense"),
    fusion_method="weighted",
    weights={"bm25": 0.3, "splade": 0.35, "dense": 0.35},
)
RRF_RERANK = RRF.model_copy(update={"name": "hybrid-rrf+rerank", "rerank": True})


def _sample(ms: float | None, configuration: str = "bm25", path: str = "api", **extra: object) -> Sample:
    return Sample(path, configuration, 0, ms, error=None if ms is not None else "HTTP 503", **extra)  # type: ignore[arg-type]


def test_summary_leaves_errors_out_of_the_percentiles_and_counts_degraded_answers() -> None:
    samples = [
        _sample(10.0),
        _sample(20.0),
        _sample(30.0),
        _sample(None),
        _sample(40.0, degraded_by="dense_timeout"),
    ]
    summary = summarise(samples)
    # successful: 10, 20, 30, 40 -> P50 rank 2 = 20, P95 rank ceil(3.8) = 4 = 40, mean 25
    assert (summary.count, summary.errors, summary.degraded) == (5, 1, 1)
    assert (summary.p50, summary.p95, summary.p99, summary.mean, summary.max) == (
        20.0,
        40.0,
        40.0,
        25.0,
        40.0,
    )
    assert summarise([_sample(None)]).p50 is None


def test_degradation_codes_name_what_the_answer_lost() -> None:
    assert degradation_codes(["dense_timeout"], "timeout") == "dense_timeout,rerank_timeout"
    assert degradation_codes([], None) == ""
    assert not _sample(5.0, degraded_by=degradation_codes([], None)).degraded


def test_encode_critical_path_is_the_slowest_concurrent_component() -> None:
    assert _sample(50.0, encode_ms={"dense": 31.5, "splade": 12.0}).encode_wall_ms == 31.5
    assert _sample(50.0).encode_wall_ms is None


def test_queries_are_drawn_in_a_seeded_order_and_cycle_when_short() -> None:
    pool = [Query("q1", "a"), Query("q2", "b"), Query("q3", "c"), Query("q2", "b")]  # q2 twice
    drawn = draw_queries(pool, 7, "seed")
    assert {q.query_id for q in drawn[:3]} == {"q1", "q2", "q3"}
    assert drawn[3:6] == drawn[:3] and drawn[6] == drawn[0]
    assert draw_queries(pool, 2, "seed", skip=1) == drawn[1:3]
    assert draw_queries(list(reversed(pool)), 3, "seed") == drawn[:3]  # file order does not matter
    with pytest.raises(ValueError, match="no queries"):
        draw_queries([], 1, "seed")


def test_rotation_starts_each_query_one_configuration_later() -> None:
    assert rotated(["a", "b", "c"], 0) == ["a", "b", "c"]
    assert rotated(["a", "b", "c"], 1) == ["b", "c", "a"]
    assert rotated(["a", "b", "c"], 5) == ["c", "a", "b"]
    assert rotated([], 3) == []


def test_search_body_sends_what_the_configuration_fixes() -> None:
    assert search_body(BM25, "statins", 10) == {
        "query": "statins",
        "size": 10,
        "components": ["bm25"],
        "fusion_method": "rrf",
        "rank_constant": 60,
        "rerank": False,
        "boosts": False,
    }
    minmax = search_body(MINMAX, "statins", 10)
    assert minmax["fusion_method"] == "weighted"
    assert minmax["weights"] == {"bm25": 0.3, "splade": 0.35, "dense": 0.35}
    assert search_body(RRF_RERANK, "statins", 10)["rerank"] is True


def test_text_request_uses_the_named_pipelines_with_the_api_depth() -> None:
    pipeline, body = text_request(RRF_RERANK, "statins", 10, 100) or ("", {})
    assert pipeline == "hybrid-rrf-rerank"
    assert body["size"] == 100  # the rerank depth, as /v1/search fetches it
    assert body["ext"] == {"rerank": {"query_context": {"query_text": "statins"}}}
    hybrid = body["query"]["hybrid"]
    assert hybrid["pagination_depth"] == 100
    assert [next(iter(q)) for q in hybrid["queries"]] == ["multi_match", "neural_sparse", "neural"]
    assert hybrid["queries"][2]["neural"]["embedding"] == {"query_text": "statins", "k": 100}

    pipeline, body = text_request(BM25, "statins", 10, 100) or ("", {})
    assert pipeline == "hybrid-rrf" and body["size"] == 10 and "ext" not in body
    assert [next(iter(q)) for q in body["query"]["hybrid"]["queries"]] == ["multi_match"]
    assert text_request(MINMAX, "statins", 10, 100) is not None
    assert (text_request(MINMAX, "statins", 10, 100) or ("",))[0] == "hybrid-minmax"
    assert text_request(RRF.model_copy(update={"boosts": True}), "statins", 10, 100) is None


def test_spec_bars_and_the_bm25_baseline() -> None:
    assert [spec_bar_ms(c) for c in (BM25, RRF, MINMAX, RRF_RERANK)] == [None, 500.0, 500.0, 650.0]
    assert bm25_baseline([RRF, BM25]) == "bm25"
    assert bm25_baseline([RRF, BM25.model_copy(update={"name": "bm25+boosts", "boosts": True})]) is None
    assert ratio(300.0, 100.0) == 3.0
    assert ratio(300.0, 0.0) is None and ratio(None, 100.0) is None


def _run(samples: list[Sample], configurations: list[EvalConfiguration]) -> RunRecord:
    return RunRecord(
        command="python -m control_plane.benchmarks.search_latency --queries 4",
        started=datetime(2026, 1, 1, tzinfo=UTC),
        seconds=60.0,
        machine="test machine",
        providers="minilm: CPUExecutionProvider",
        loads=[1.0, 3.0],
        load_before=1.0,
        load_after=2.0,
        api="http://127.0.0.1:8600",
        opensearch="http://127.0.0.1:9200",
        index_pattern="chunks-nfcorpus",
        counts_before=[("chunks-nfcorpus", "beir", 6794)],
        counts_after=[("chunks-nfcorpus", "beir", 6794)],
        query_source="nfcorpus/dev",
        warmup=0,
        method="nearest-rank",
        paths=["api"],
        skipped_paths={},
        configurations=configurations,
        samples=samples,
        plot_name="latency.png",
    )


def test_bars_ratios_and_report_from_one_run() -> None:
    samples = [_sample(ms, "bm25") for ms in (10.0, 20.0, 30.0, 40.0)]
    samples += [_sample(ms, "hybrid-rrf") for ms in (100.0, 200.0, 300.0)]
    samples.append(_sample(600.0, "hybrid-rrf", degraded_by="dense_timeout"))
    run = _run(samples, [BM25, RRF])
    # hybrid P95 = 600 (rank 4 of 4) >= 500 -> fail; P50 ratio 200 / 20 = 10, P95 ratio 600 / 40 = 15.
    assert bar_rows(run) == [["hybrid-rrf", "api (the spec's measure)", "600.0", "< 500", "**FAIL**"]]
    assert ratio_rows(run) == [["api", "hybrid-rrf / bm25", "10.00", "15.00"]]
    report = render_report(run)
    assert "| api | hybrid-rrf | 4 | 200.0 | 600.0 | 600.0 | 300.0 | 600.0 | 0 | 1 |" in report
    assert "| api | hybrid-rrf | dense_timeout | 1 |" in report
    assert "unchanged during the run" in report
    assert "nearest-rank" in report
