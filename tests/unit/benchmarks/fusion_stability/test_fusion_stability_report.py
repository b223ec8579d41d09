"""The fusion-stability report from hand-made figures: the tables, the pair counts and the verdicts."""

from benchmarks.fusion_stability.compute import Comparison, ConfigurationStability, PairSet
from benchmarks.fusion_stability.report import Header, render_report
from benchmarks.run_stamp import RunStamp
from control_plane.measures.significance import PairedTest
from control_plane.measures.stability import PairRule

PAIRS = PairSet(
    pairs=[("q1", "q2"), ("q3", "q4")],
    groups=["g1", "g2"],
    strata=["near-duplicate", "different wording"],
    overlaps=[0.75, 0.2],
    uncapped=3,
    texts={
        "q1": "statins lower ldl",
        "q2": "statins do not lower ldl",
        "q3": "aspirin",
        "q4": "acetylsalicylic acid",
    },
)
HEADER = Header(
    run=RunStamp(
        "python -m benchmarks.fusion_stability --out r.md",
        "a test machine",
        "2026-01-02 03:04 UTC",
        0.5,
        0.7,
        61.4,
    ),
    test_set_id="toy/train",
    index="chunks-toy",
    index_chunks=120,
    index_documents=40,
    depth=100,
    candidate_depth=300,
    rule=PairRule(),
    permutations=1000,
    seed=7,
    alpha=0.05,
)
MEASURE_NAMES = ("topk_jaccard", "rbo", "within_pair_metric_variance", "mean_abs_metric_difference")


def configuration(
    name: str, means: tuple[float, float, float, float], degraded: dict[str, int]
) -> ConfigurationStability:
    by_measure = dict(zip(MEASURE_NAMES, means, strict=True))
    return ConfigurationStability(
        name=name,
        values={m: [v, v] for m, v in by_measure.items()},
        means=by_measure,
        by_stratum={"near-duplicate": by_measure, "different wording": by_measure},
        variance_share=0.25,
        mean_metric=0.4,
        degraded=degraded,
    )


RRF = configuration("hybrid-rrf", (0.6, 0.7, 0.01, 0.1), {"timeout": 2})
MINMAX = configuration("hybrid-minmax", (0.5, 0.65, 0.02, 0.15), {})


def test_the_report_states_the_pairs_and_tabulates_each_configuration() -> None:
    text = render_report(HEADER, PAIRS, [RRF, MINMAX], None, "r.png")
    assert "- machine: a test machine; 2026-01-02 03:04 UTC; 61 s\n" in text
    assert "- 2 configurations x 4 queries\n- Index `chunks-toy` (120 chunks of 40 documents)" in text
    assert "- 2 pairs kept of 3 before the cap, from 2 relevance sets; 4 distinct queries searched.\n" in text
    assert (
        "1 near-duplicate edits (≥ 0.5: negations, changed numbers or entities), 1 different wordings" in text
    )
    assert "  - `q1` 'statins lower ldl' | `q2` 'statins do not lower ldl' (word overlap 0.75)\n" in text
    assert "| hybrid-rrf | 0.6000 | 0.7000 | 0.0100 | 0.1000 | 0.250 | 0.4000 | timeout 2 |\n" in text
    assert "| hybrid-minmax | 0.5000 | 0.6500 | 0.0200 | 0.1500 | 0.250 | 0.4000 | 0 |\n" in text
    assert "| hybrid-minmax | different wording | 1 | 0.5000 | 0.6500 | 0.0200 | 0.1500 |\n" in text
    assert "![stability by configuration](r.png)\n" in text
    assert "No paired comparison: run both hybrid-rrf and hybrid-minmax for it.\n" in text


def test_a_configuration_is_called_stabler_only_when_both_tests_agree() -> None:
    comparisons = [
        Comparison("topk_jaccard", PairedTest(0.1, 0.01, 2, True), PairedTest(0.1, 0.02, 2, True)),
        Comparison("rbo", PairedTest(0.05, 0.01, 2, True), PairedTest(0.05, 0.2, 2, True)),
        Comparison(
            "within_pair_metric_variance", PairedTest(-0.01, 0.5, 2, True), PairedTest(-0.01, 0.5, 2, True)
        ),
        Comparison(
            "mean_abs_metric_difference", PairedTest(0.0, 1.0, 2, True), PairedTest(0.0, 1.0, 2, True)
        ),
    ]
    text = render_report(HEADER, PAIRS, [RRF, MINMAX], comparisons, "r.png")
    assert "## hybrid-rrf vs hybrid-minmax, paired\n" in text
    assert (
        "| Jaccard@10 ↑ | 0.6000 | 0.5000 | +0.1000 | 0.0100 (n=2) | 0.0200 (n=2, diff +0.1000) "
        "| hybrid-rrf |\n" in text
    )
    assert "| 0.2000 (n=2, diff +0.0500) | no difference at 0.05 (point estimate: hybrid-rrf) |\n" in text
    assert "| mean abs ΔnDCG@10 ↓ | 0.1000 | 0.1500 | +0.0000 | 1.0000 (n=2) |" in text
    assert text.rstrip().endswith("read them beside mean nDCG@10 and the overlap measures.")
