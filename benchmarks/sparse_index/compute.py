"""The figures, from the recorded samples (pure: no cluster, no models)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from benchmarks.sparse_index.measure import CONFIGURATIONS, Configuration, Sample
from benchmarks.sparse_index.variants import Variant
from control_plane.formulas.percentile import percentile
from control_plane.measures.metrics import Run, evaluate, per_query
from control_plane.measures.significance import paired_test_by_query

METRICS = ("ndcg@10", "recall@100")
OVERLAP_K = 100


@dataclass(frozen=True)
class Row:
    """One configuration on one split. ``overlap``: mean share of the exact top-100 chunks (same query
    encoding, rank_features without pruning) that the configuration's top 100 holds. ``ndcg_delta`` and
    ``p_value``: nDCG@10 against that exact list (paired randomization test). The four judged figures are
    None on an index without relevance judgments (the MEDLINE sample): overlap and latency need none."""

    configuration: Configuration
    ndcg10: float | None
    recall100: float | None
    overlap100: float
    ndcg_delta: float | None
    p_value: float | None
    took_p50: float
    took_p95: float
    round_trip_p50: float
    round_trip_p95: float
    short_lists: int


@dataclass(frozen=True)
class SplitFigures:
    test_set_id: str
    index: str
    queries: int
    depth: int
    variants: tuple[Variant, ...]
    rows: tuple[Row, ...]
    seconds: float
    # (queries whose hybrid bm25 + splade ranking the two-phase processor changed, queries checked)
    two_phase_in_hybrid: tuple[int, int] = (0, 0)
    # per method: (method, doc-only minus bi-encoder nDCG@10, paired randomization p)
    doc_only_vs_bi_encoder: tuple[tuple[str, float, float], ...] = ()

    @property
    def judged(self) -> bool:
        """Whether the index has relevance judgments (False: an ``--unjudged`` split, overlap and latency
        only)."""
        return any(r.ndcg10 is not None for r in self.rows)

    def row(self, configuration: Configuration) -> Row:
        return next(r for r in self.rows if r.configuration == configuration)


def document_run(samples: Sequence[Sample]) -> Run:
    """Chunk hits collapsed to documents by their best chunk (BEIR judges documents)."""
    run: dict[str, dict[str, float]] = {}
    for sample in samples:
        best: dict[str, float] = {}
        for _, doc_id, score in sample.hits:
            if doc_id not in best or score > best[doc_id]:
                best[doc_id] = score
        run[sample.query_id] = best
    return run


def overlap(found: Sequence[str], exact: Sequence[str], k: int = OVERLAP_K) -> float:
    """|found@k ∩ exact@k| / |exact@k| (1.0 when the exact list is empty)."""
    truth = set(exact[:k])
    return len(set(found[:k]) & truth) / len(truth) if truth else 1.0


def by_configuration(samples: Sequence[Sample]) -> dict[Configuration, list[Sample]]:
    """The samples of each configuration, in the order they were taken."""
    grouped: dict[Configuration, list[Sample]] = {}
    for sample in samples:
        grouped.setdefault(sample.configuration, []).append(sample)
    return grouped


def judged_figures(
    own: Sequence[Sample], exact: Sequence[Sample], qrels: Mapping[str, Mapping[str, int]]
) -> tuple[float, float, float, float]:
    """nDCG@10, Recall@100, and nDCG@10 against the exact list's (mean difference, paired randomization
    p) of one configuration's samples ``own``."""
    run, exact_run = document_run(own), document_run(exact)
    scores = evaluate(qrels, run, METRICS)
    mine = {q: v["ndcg@10"] for q, v in per_query(qrels, run, ["ndcg@10"]).items()}
    theirs = {q: v["ndcg@10"] for q, v in per_query(qrels, exact_run, ["ndcg@10"]).items()}
    test = paired_test_by_query(theirs, mine)
    return scores["ndcg@10"], scores["recall@100"], test.mean_difference, test.p_value


def split_rows(
    samples: Sequence[Sample], qrels: Mapping[str, Mapping[str, int]] | None, depth: int
) -> tuple[Row, ...]:
    """One row per configuration present in ``samples``, in CONFIGURATIONS order. ``qrels`` None: the
    index has no judgments (``--unjudged``), so the rows hold overlap and latency, their judged figures
    None."""
    by_config = by_configuration(samples)
    chunk_lists = {c: {s.query_id: [h[0] for h in s.hits] for s in ss} for c, ss in by_config.items()}
    rows: list[Row] = []
    for configuration in CONFIGURATIONS:
        if configuration not in by_config:
            continue
        own = by_config[configuration]
        exact = configuration.exact
        exact_lists = chunk_lists.get(exact, chunk_lists[configuration])
        overlaps = [
            overlap(chunk_lists[configuration][q], exact_lists[q]) for q in chunk_lists[configuration]
        ]
        ndcg10, recall100, delta, p_value = (
            judged_figures(own, by_config.get(exact, own), qrels)
            if qrels is not None
            else (None, None, None, None)
        )
        took = [s.took_ms for s in own]
        trip = [s.round_trip_ms for s in own]
        rows.append(
            Row(
                configuration=configuration,
                ndcg10=ndcg10,
                recall100=recall100,
                overlap100=math.fsum(overlaps) / len(overlaps) if overlaps else math.nan,
                ndcg_delta=delta,
                p_value=p_value,
                took_p50=percentile(took, 50),
                took_p95=percentile(took, 95),
                round_trip_p50=percentile(trip, 50),
                round_trip_p95=percentile(trip, 95),
                short_lists=sum(1 for s in own if len(s.hits) < depth),
            )
        )
    return tuple(rows)


def doc_only_vs_bi_encoder(
    samples: Sequence[Sample], qrels: Mapping[str, Mapping[str, int]]
) -> tuple[tuple[str, float, float], ...]:
    """Per method, doc-only minus bi-encoder query encoding in nDCG@10 and the paired test's p (judged
    splits only: an ``--unjudged`` split has no nDCG@10 to compare)."""
    by_config = by_configuration(samples)
    out: list[tuple[str, float, float]] = []
    for method in dict.fromkeys(c.method for c in CONFIGURATIONS):
        bi, doc = Configuration(method, "bi-encoder"), Configuration(method, "doc-only")
        if bi not in by_config or doc not in by_config:
            continue
        scores = [
            {q: v["ndcg@10"] for q, v in per_query(qrels, document_run(by_config[c]), ["ndcg@10"]).items()}
            for c in (bi, doc)
        ]
        test = paired_test_by_query(scores[0], scores[1])
        out.append((method, test.mean_difference, test.p_value))
    return tuple(out)
