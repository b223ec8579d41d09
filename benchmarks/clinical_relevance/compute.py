"""The clinical benchmark's figures, pure over what was captured: every routing variant re-ordered
offline (control_plane/clinical/section_routing.py, the function /v1/search routes with), scored at chunk
level and compared with boosts off overall, per query group and over the routing grid."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from benchmarks.clinical_relevance.measure import Captured
from control_plane.clinical.intents import Boost
from control_plane.config.search_settings import SectionRoutingSettings
from control_plane.measures.metrics import Judgments, ndcg_at_k, precision_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.search.section_routing import route_chunks, topical_records
from control_plane.testsets.catalog import Query

GRID = {
    "weight": (0.25, 0.5, 1.0, 2.0, 4.0),
    "min_topicality": (0.0, 0.5, 0.8),
    "max_documents": (1, 3, 5, 10),
    "fetch_sections": (False, True),
}
MULTI = "multi-intent"
NO_INTENT = "none"


@dataclass(frozen=True)
class Scores:
    ndcg10: dict[str, float]
    p5: dict[str, float]
    rr_section: dict[str, float]

    def mean(self, metric: str, ids: Iterable[str] | None = None) -> float:
        values = getattr(self, metric)
        chosen = list(values) if ids is None else [i for i in ids if i in values]
        return sum(values[i] for i in chosen) / len(chosen) if chosen else float("nan")


@dataclass(frozen=True)
class Change:
    """A mean over some queries and the same mean with boosts off (the reference)."""

    value: float
    reference: float


@dataclass(frozen=True)
class Comparison:
    """A routing variant, or a query group with boosts on, against boosts off on the same queries; p: the
    paired randomization test on nDCG@10."""

    name: str
    queries: int
    ndcg10: Change
    p5: Change
    rr_section: Change
    p_value: float


@dataclass(frozen=True)
class GridRow:
    """One routing setting's overall nDCG@10, its gain over boosts off and the worst intent group's."""

    params: SectionRoutingSettings
    ndcg10: float
    gain: float
    worst_group_gain: float


@dataclass(frozen=True)
class FusionFigures:
    fusion: str
    configurations: tuple[Comparison, ...]
    groups: tuple[Comparison, ...]
    grid: tuple[GridRow, ...]  # best first; empty unless the grid was asked for


def first_grade_rr(judgments: Judgments, ranking: Sequence[str], grade: int = 2, k: int = 10) -> float:
    """1 / rank of the first chunk with ``grade`` in the top k (0 when none)."""
    for rank, chunk_id in enumerate(ranking[:k], start=1):
        if judgments.get(chunk_id, 0) >= grade:
            return 1.0 / rank
    return 0.0


def score_rankings(qrels: Mapping[str, Judgments], rankings: Mapping[str, Sequence[str]]) -> Scores:
    return Scores(
        ndcg10={q: ndcg_at_k(qrels[q], r, 10) for q, r in rankings.items()},
        p5={q: precision_at_k(qrels[q], r, 5) for q, r in rankings.items()},
        rr_section={q: first_grade_rr(qrels[q], r) for q, r in rankings.items()},
    )


def route(item: Captured, boosts: Sequence[Boost], params: SectionRoutingSettings) -> list[str]:
    """The routed chunk ids for one captured query: the function /v1/search routes with."""
    topical = set(topical_records(item.fused, params))
    fetched = [c for c in item.sections if c.doc_id in topical] if params.fetch_sections else []
    return [c.chunk_id for c in route_chunks(item.fused, boosts, params, fetched)]


def groups(queries: Sequence[Query]) -> dict[str, list[str]]:
    """Query ids per intent (multi-intent questions in each of theirs and in MULTI) and per form."""
    by: dict[str, list[str]] = defaultdict(list)
    for query in queries:
        listed = query.metadata.get("intents") or []
        intents = [str(i) for i in listed] if isinstance(listed, list) else []
        for name in intents or [NO_INTENT]:
            by[f"intent:{name}"].append(query.query_id)
        if len(intents) > 1:
            by[f"intent:{MULTI}"].append(query.query_id)
        by[f"form:{query.metadata.get('form', '?')}"].append(query.query_id)
    return dict(sorted(by.items()))


def tables_only(boosts: Sequence[Boost]) -> list[Boost]:
    return [b for b in boosts if b.routes_tables]


def grid_points() -> list[SectionRoutingSettings]:
    keys = list(GRID)
    return [
        SectionRoutingSettings(**dict(zip(keys, values, strict=True)))
        for values in itertools.product(*GRID.values())
    ]


def compare(name: str, scores: Scores, base: Scores, ids: Sequence[str]) -> Comparison:
    test = paired_randomization_test([base.ndcg10[q] for q in ids], [scores.ndcg10[q] for q in ids])

    def change(metric: str) -> Change:
        return Change(scores.mean(metric, ids), base.mean(metric, ids))

    return Comparison(name, len(ids), change("ndcg10"), change("p5"), change("rr_section"), test.p_value)


def grid_rows(captured: Sequence[Captured], qrels: Mapping[str, Judgments], off: Scores) -> list[GridRow]:
    """Every grid point's overall and worst-group nDCG@10 (dev only), best first."""
    group_ids = groups([c.query for c in captured])
    rows = []
    for params in grid_points():
        scores = score_rankings(qrels, {c.query.query_id: route(c, c.boosts, params) for c in captured})
        worst = min(
            scores.mean("ndcg10", ids) - off.mean("ndcg10", ids)
            for name, ids in group_ids.items()
            if name.startswith("intent:")
        )
        overall = scores.mean("ndcg10")
        rows.append(GridRow(params, overall, overall - off.mean("ndcg10"), worst))
    return sorted(rows, key=lambda row: -row.ndcg10)


def fusion_figures(
    fusion: str,
    captured: Sequence[Captured],
    served: Mapping[str, Sequence[str]],
    qrels: Mapping[str, Judgments],
    chosen: SectionRoutingSettings,
    grid: bool,
) -> FusionFigures:
    """One fusion method's variants against boosts off (``served``: the end-to-end rankings with boosts
    on), its per-group change with routing and, with ``grid``, the routing grid."""
    ids = [c.query.query_id for c in captured]
    off = score_rankings(qrels, {c.query.query_id: [x.chunk_id for x in c.fused] for c in captured})
    on = score_rankings(qrels, {c.query.query_id: route(c, c.boosts, chosen) for c in captured})
    tables = score_rankings(
        qrels, {c.query.query_id: route(c, tables_only(c.boosts), chosen) for c in captured}
    )
    restricted = score_rankings(
        qrels,
        {
            c.query.query_id: route(
                Captured(c.query, c.trials_only, c.boosts, c.sections) if c.trials_only is not None else c,
                c.boosts,
                chosen,
            )
            for c in captured
        },
    )
    configurations = (
        compare("boosts off", off, off, ids),
        compare("boosts on (routing)", on, off, ids),
        compare("table routing alone", tables, off, ids),
        compare("boosts on + eligibility searches trials only", restricted, off, ids),
        compare("boosts on, served end to end", score_rankings(qrels, served), off, ids),
    )
    by_group = tuple(
        compare(name, on, off, group) for name, group in groups([c.query for c in captured]).items()
    )
    return FusionFigures(
        fusion, configurations, by_group, tuple(grid_rows(captured, qrels, off)) if grid else ()
    )
