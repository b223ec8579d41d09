"""Clinical relevance: does clinical routing help on the clinical collection (testsets/clinical)?

    export BIOHYBRID_CONFIG=control_plane/config/local.yaml
    python -m control_plane.benchmarks.clinical_relevance --test-set clinical/dev --index chunks-clinical \\
        --grid --out model_artifacts/reports/clinical-relevance/dev.md

Per query and fusion method, one /v1/search-equivalent search (SearchService, chunk granularity) with
boosts off gives the fused chunks; the detected intents give the boosts; the routed sections of the
most topical records are fetched once. Every routing setting is then the pure re-ordering of
control_plane/search/routing.py over those lists, so a grid costs no further search. The chosen (or
``--fixed``) setting is also run end to end through SearchService with boosts on, and the report says
whether that agrees with the offline figure.

Metrics at chunk level: nDCG@10 (grades 2 and 1), P@5 (any judged chunk: the right record), and the
reciprocal rank of the first grade-2 chunk (the right section). Paired randomization tests against
boosts off; per intent (a two-intent question counts in both and in "multi-intent"), per form.
"""

from __future__ import annotations

import argparse
import itertools
import shlex
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import SectionRoutingSettings, Settings, load_settings
from control_plane.evaluation.report import describe_machine
from control_plane.measures.metrics import Judgments, ndcg_at_k, precision_at_k
from control_plane.measures.significance import paired_randomization_test
from control_plane.reports.figures import new_figure, save_figure
from control_plane.search.boosting import intent_config, intent_config_path, plan_intents
from control_plane.search.intent_quality import LabelledQuery, measure_detection
from control_plane.search.intents import TABLE_FIELD, Boost
from control_plane.search.results import ChunkResult
from control_plane.search.routing import route_chunks, topical_records
from control_plane.search.sections import fetch_sections
from control_plane.search.service import SearchService
from control_plane.search.spec import Filters, FusionMethod, SearchSpec
from control_plane.testsets.catalog import Query, load_test_set

FUSIONS: tuple[FusionMethod, ...] = ("rrf", "weighted")
FETCH_DOCUMENTS = 10  # sections are fetched for this many topical records (>= any max_documents tried)
GRID = {
    "weight": (0.25, 0.5, 1.0, 2.0, 4.0),
    "min_topicality": (0.0, 0.5, 0.8),
    "max_documents": (1, 3, 5, 10),
    "fetch_sections": (False, True),
}
MULTI = "multi-intent"
ELIGIBILITY = "eligibility"
TRIAL_SOURCES = ("ctgov",)
NO_INTENT = "none"


@dataclass(frozen=True)
class Captured:
    """One query's material: its fused chunks (boosts off), boosts and fetched routed sections."""

    query: Query
    fused: list[ChunkResult]
    boosts: Sequence[Boost]
    sections: list[ChunkResult]
    # The fused chunks searched only in trials (eligibility detected: the restrict_to_sources switch).
    trials_only: list[ChunkResult] | None = None


@dataclass(frozen=True)
class Scores:
    ndcg10: dict[str, float]
    p5: dict[str, float]
    rr_section: dict[str, float]

    def mean(self, metric: str, ids: Iterable[str] | None = None) -> float:
        values = getattr(self, metric)
        chosen = list(values) if ids is None else [i for i in ids if i in values]
        return sum(values[i] for i in chosen) / len(chosen) if chosen else float("nan")


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


def capture(
    service: SearchService,
    settings: Settings,
    queries: Sequence[Query],
    fusion: FusionMethod,
    index: str,
    tenant: str,
) -> list[Captured]:
    depth = settings.search.section_routing.depth
    captured: list[Captured] = []
    for number, query in enumerate(queries, start=1):
        spec = SearchSpec(
            query=query.text,
            size=depth,
            fusion_method=fusion,
            boosts=False,
            highlight=False,
            granularity="chunk",
        )
        response = service.search(spec, tenant, index)
        fused = [r for r in response.results if isinstance(r, ChunkResult)]
        intents = plan_intents(spec.model_copy(update={"boosts": True}), settings)
        boosts = intents.boosts
        sections: list[ChunkResult] = []
        if boosts:
            wide = SectionRoutingSettings(min_topicality=0.0, max_documents=FETCH_DOCUMENTS)
            documents = topical_records(fused, wide)
            sections = fetch_sections(
                service.client, index, tenant, intents.spec.filters, documents, boosts, 30
            )
        trials_only = None
        if any(b.intent == ELIGIBILITY for b in boosts):
            narrowed = spec.model_copy(update={"filters": Filters(source=list(TRIAL_SOURCES))})
            answer = service.search(narrowed, tenant, index)
            trials_only = [r for r in answer.results if isinstance(r, ChunkResult)]
        captured.append(Captured(query, fused, boosts, sections, trials_only))
        if number % 50 == 0:
            print(f"  {fusion}: {number}/{len(queries)} queries", file=sys.stderr)
    return captured


def end_to_end(
    service: SearchService, queries: Sequence[Query], fusion: FusionMethod, index: str, tenant: str
) -> dict[str, list[str]]:
    """Rankings from SearchService with boosts on: the path /v1/search serves."""
    rankings: dict[str, list[str]] = {}
    for query in queries:
        spec = SearchSpec(
            query=query.text, size=10, fusion_method=fusion, highlight=False, granularity="chunk"
        )
        rankings[query.query_id] = [r.chunk_id for r in service.search(spec, tenant, index).results]  # type: ignore[union-attr]
    return rankings


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
    return [b for b in boosts if b.field == TABLE_FIELD]


def detection_lines(queries: Sequence[Query], settings: Settings) -> list[str]:
    """Precision and recall of intent detection against the split's intent labels, per intent."""
    labelled = [
        LabelledQuery.model_validate(
            {"query": q.text, "intents": q.metadata.get("intents") or [], "form": q.metadata.get("form")}
        )
        for q in queries
    ]
    report = measure_detection(labelled, intent_config(str(intent_config_path(settings))))

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    lines = ["", "## Intent detection on this split", "", "| | precision | recall |", "|---|---|---|"]
    lines.append(f"| overall | {cell(report.overall.precision)} | {cell(report.overall.recall)} |")
    for name, counts in [*report.per_intent.items(), *report.per_form.items()]:
        lines.append(f"| {name} | {cell(counts.precision)} | {cell(counts.recall)} |")
    return lines


def grid_points() -> list[SectionRoutingSettings]:
    keys = list(GRID)
    return [
        SectionRoutingSettings(**dict(zip(keys, values, strict=True)))
        for values in itertools.product(*GRID.values())
    ]


def _row(name: str, scores: Scores, base: Scores, ids: Sequence[str]) -> str:
    cells = [name]
    for metric in ("ndcg10", "p5", "rr_section"):
        value, reference = scores.mean(metric, ids), base.mean(metric, ids)
        cells.append(f"{value:.4f} ({value - reference:+.4f})")
    test = paired_randomization_test([base.ndcg10[q] for q in ids], [scores.ndcg10[q] for q in ids])
    cells.append(f"{test.p_value:.3f}")
    return "| " + " | ".join(cells) + " |"


def plot_groups(
    results: Mapping[str, tuple[Scores, Scores]], group_ids: Mapping[str, list[str]], path: Path
) -> None:
    """Per-intent nDCG@10 bars, boosts off and on, one panel per fusion method."""
    names = [g for g in group_ids if g.startswith("intent:")]
    figure = new_figure(9.5, 3.6 * len(results))
    for row, (fusion, (off, on)) in enumerate(results.items(), start=1):
        axes = figure.add_subplot(len(results), 1, row)
        xs = range(len(names))
        axes.bar(
            [x - 0.2 for x in xs], [off.mean("ndcg10", group_ids[n]) for n in names], 0.4, label="boosts off"
        )
        axes.bar(
            [x + 0.2 for x in xs], [on.mean("ndcg10", group_ids[n]) for n in names], 0.4, label="boosts on"
        )
        axes.set_xticks(list(xs), [f"{n[7:]}\n(n={len(group_ids[n])})" for n in names], fontsize=8)
        axes.set_ylabel("nDCG@10")
        axes.set_ylim(0, 1)
        axes.set_title(f"{fusion}: per intent", fontsize=10)
        axes.legend(fontsize=8)
    save_figure(figure, path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--test-set", default="clinical/dev")
    parser.add_argument("--index", default="chunks-clinical")
    parser.add_argument("--tenant", default="default")
    parser.add_argument("--grid", action="store_true", help="also search the routing grid (dev only)")
    parser.add_argument("--out", type=Path, required=True, help="markdown report (a .png beside it)")
    args = parser.parse_args(argv)
    if args.grid and not args.test_set.endswith("/dev"):
        parser.error("--grid chooses settings: run it on a dev split only")

    settings = load_settings()
    chosen = settings.search.section_routing
    service = SearchService(make_client(settings.opensearch), settings)
    test_set = load_test_set(args.test_set)
    queries = list(test_set.queries())
    qrels = test_set.qrels()
    group_ids = groups(queries)
    all_ids = [q.query_id for q in queries]
    started = time.perf_counter()

    lines = [
        f"# Clinical relevance: {args.test_set}",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {describe_machine()}; {len(queries)} queries, index "
        f"`{args.index}`.",
        "",
        "```",
        "BIOHYBRID_CONFIG=control_plane/config/local.yaml "
        "python -m control_plane.benchmarks.clinical_relevance "
        + shlex.join(argv if argv is not None else sys.argv[1:]),
        "```",
        "",
        f"Routing settings (search.section_routing): weight {chosen.weight}, min_topicality "
        f"{chosen.min_topicality}, max_documents {chosen.max_documents}, depth {chosen.depth}, "
        f"fetch_sections {chosen.fetch_sections}. Cells: mean (difference from boosts off); "
        "p: paired randomization test on nDCG@10 against boosts off. "
        "RR§: reciprocal rank of the first grade-2 chunk (the right section).",
    ]
    per_fusion: dict[str, tuple[Scores, Scores]] = {}
    grid_lines: list[str] = []
    for fusion in FUSIONS:
        captured = capture(service, settings, queries, fusion, args.index, args.tenant)
        off = score_rankings(qrels, {c.query.query_id: [x.chunk_id for x in c.fused] for c in captured})
        on = score_rankings(qrels, {c.query.query_id: route(c, c.boosts, chosen) for c in captured})
        tables = score_rankings(
            qrels, {c.query.query_id: route(c, tables_only(c.boosts), chosen) for c in captured}
        )
        restricted = score_rankings(
            qrels,
            {
                c.query.query_id: route(
                    Captured(c.query, c.trials_only, c.boosts, c.sections)
                    if c.trials_only is not None
                    else c,
                    c.boosts,
                    chosen,
                )
                for c in captured
            },
        )
        served = score_rankings(qrels, end_to_end(service, queries, fusion, args.index, args.tenant))
        per_fusion[fusion] = (off, on)
        lines += [
            "",
            f"## {fusion}",
            "",
            "| configuration | nDCG@10 | P@5 | RR§ | p |",
            "|---|---|---|---|---|",
            _row("boosts off", off, off, all_ids),
            _row("boosts on (routing)", on, off, all_ids),
            _row("table routing alone", tables, off, all_ids),
            _row("boosts on + eligibility searches trials only", restricted, off, all_ids),
            _row("boosts on, served end to end", served, off, all_ids),
            "",
            "| group | n | boosts off nDCG@10 | boosts on nDCG@10 | P@5 on | RR§ on | p |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, ids in group_ids.items():
            test = paired_randomization_test([off.ndcg10[q] for q in ids], [on.ndcg10[q] for q in ids])
            lines.append(
                f"| {name} | {len(ids)} | {off.mean('ndcg10', ids):.4f} | {on.mean('ndcg10', ids):.4f} "
                f"({on.mean('ndcg10', ids) - off.mean('ndcg10', ids):+.4f}) | {on.mean('p5', ids):.4f} "
                f"({on.mean('p5', ids) - off.mean('p5', ids):+.4f}) | {on.mean('rr_section', ids):.4f} "
                f"({on.mean('rr_section', ids) - off.mean('rr_section', ids):+.4f}) | {test.p_value:.3f} |"
            )
        if args.grid:
            grid_lines += grid_table(fusion, captured, qrels, off)
    lines += detection_lines(queries, settings)
    lines += grid_lines
    plot_path = args.out.with_suffix(".png")
    plot_groups(per_fusion, group_ids, plot_path)
    lines += ["", f"![per-intent nDCG@10, boosts off and on]({plot_path.name})", ""]
    lines.append(f"Took {time.perf_counter() - started:.0f} s.")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(args.out)
    return 0


def grid_table(
    fusion: str, captured: Sequence[Captured], qrels: Mapping[str, Judgments], off: Scores
) -> list[str]:
    """Every grid point's overall and worst-group nDCG@10 (dev only), best first."""
    group_ids = groups([c.query for c in captured])
    rows: list[tuple[float, str]] = []
    for params in grid_points():
        scores = score_rankings(qrels, {c.query.query_id: route(c, c.boosts, params) for c in captured})
        worst = min(
            scores.mean("ndcg10", ids) - off.mean("ndcg10", ids)
            for name, ids in group_ids.items()
            if name.startswith("intent:")
        )
        overall = scores.mean("ndcg10")
        rows.append(
            (
                overall,
                f"| {params.weight} | {params.min_topicality} | {params.max_documents} "
                f"| {params.fetch_sections} | {overall:.4f} ({overall - off.mean('ndcg10'):+.4f}) "
                f"| {worst:+.4f} |",
            )
        )
    rows.sort(key=lambda row: -row[0])
    return [
        "",
        f"### Routing grid, {fusion} (best first; worst: the largest loss of any intent group)",
        "",
        "| weight | min_topicality | max_documents | fetch | nDCG@10 | worst group Δ |",
        "|---|---|---|---|---|---|",
        *(row for _, row in rows),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
