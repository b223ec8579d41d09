"""The evaluation end to end on the real stack: NFCorpus dev queries over a small slice of the corpus
(their relevant abstracts plus filler) indexed by the project's ingest, searched through SearchService
with the project's inference service, stored in a test-prefixed eval-runs index and read back, gauges
set, the regression alert fired by a raised baseline, and the CLI's runs and report written."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from integration.names import TEST_TENANT, session_index, tenant_session_index
from integration.service import running_service
from opensearchpy import OpenSearch
from prometheus_client import CollectorRegistry

from control_plane.cli import evaluate as evaluate_command
from control_plane.config.settings import Settings
from control_plane.evaluation.api import EvaluateRequest, evaluate
from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.settings import EVALUATION_FILE, EvaluationSettings, load_evaluation_settings
from control_plane.evaluation.store import EvalRunStore
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, ingest
from control_plane.ingestion.setup import python_encoder
from control_plane.measures.metrics import evaluate as mean_metrics
from control_plane.search.service import SearchService
from control_plane.testsets.catalog import read_qrels, read_trec_run
from control_plane.testsets.slices import SliceSpec, build_slice

pytestmark = pytest.mark.integration

QUERY_COUNT = 5
# QUERY_COUNT nfcorpus/dev queries with at most 8 judged abstracts each, those abstracts, 40 others.
EVAL_SLICE = SliceSpec("evalslice", (("nfcorpus/dev", QUERY_COUNT),), distractors=40, max_judged=8)
# The corpus index is the tenant's own: the secured node's settings route each tenant to its indices
# (index.tenant_indices), and these tests run there too (integration/security).
TENANT = TEST_TENANT
CONFIGURATIONS = ["bm25", "hybrid-rrf"]


@dataclass
class EvalStack:
    settings: Settings
    evaluation: EvaluationSettings
    evaluation_file: Path
    folder: Path
    index: str
    runs_index: str
    documents: int


@pytest.fixture(scope="module")
def stack(
    client: OpenSearch, applied: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EvalStack]:
    root = tmp_path_factory.mktemp("evaluation")
    built = build_slice(EVAL_SLICE, root)
    folder, documents = built.folder, built.documents
    index = tenant_session_index("evaluation")
    runs_index = session_index("evaluation", prefix="eval-runs")
    data = yaml.safe_load(EVALUATION_FILE.read_text(encoding="utf-8"))
    data.update(
        indices={folder.name: index},
        tenant_id=TENANT,
        store={"index": runs_index},
        metrics=["ndcg@10", "recall@10", "recall@100"],
    )
    evaluation_file = root / "evaluation.yaml"
    evaluation_file.write_text(yaml.safe_dump(data), encoding="utf-8")
    with running_service() as url:
        # The node's settings (the local node's, or the secured node's in tests/integration/security)
        # with this module's inference service encoding the queries.
        settings = applied.model_copy(
            update={"models": applied.models.model_copy(update={"service_url": url})}
        )
        try:
            encoder, counter = python_encoder(settings)
            options = IngestOptions(index=index, tenant_id=TENANT, progress=False)
            summary = ingest(
                client,
                [folder / "corpus.jsonl"],
                options,
                encoder,
                DeadLetterFile(root / "dead.jsonl"),
                counter,
            )
            assert summary.documents == documents and summary.index_failures == 0
            client.indices.refresh(index=index)
            yield EvalStack(
                settings,
                load_evaluation_settings(evaluation_file),
                evaluation_file,
                folder,
                index,
                runs_index,
                documents,
            )
        finally:
            client.indices.delete(index=f"{index},{runs_index}", ignore_unavailable=True)


def _value(registry: CollectorRegistry, name: str, **labels: str) -> float | None:
    return registry.get_sample_value(name, labels)


def test_runs_are_stored_gauged_and_compared_with_the_baseline(client: OpenSearch, stack: EvalStack) -> None:
    service = SearchService(client, stack.settings)
    store = EvalRunStore(client, stack.settings, stack.runs_index)
    registry = CollectorRegistry()
    gauges = EvaluationGauges(registry, stack.evaluation.alert.metric)
    test_set_id = f"{stack.folder}:dev"
    request = EvaluateRequest(test_set_id=test_set_id, configurations=CONFIGURATIONS)

    first = evaluate(request, service, store, settings=stack.evaluation, gauges=gauges)
    assert first.query_count == QUERY_COUNT and first.index == stack.index and first.stored
    assert [c.configuration for c in first.configurations] == CONFIGURATIONS
    bm25, hybrid = first.configurations
    # At most 100 documents in the index and the dense component's k covers every chunk: the hybrid
    # returns every document, so every relevant one is within its top 100.
    assert stack.documents <= 100 and hybrid.metrics["recall@100"] == pytest.approx(1.0)
    assert all(0.0 <= value <= 1.0 for c in first.configurations for value in c.metrics.values())
    assert set(hybrid.significance) == {"ndcg@10", "recall@10", "recall@100"} and not bm25.significance
    assert hybrid.component_share["dense"] == pytest.approx(1.0) and bm25.component_share == {"bm25": 1.0}
    assert set(hybrid.top10_overlap) == {"bm25"}  # bm25 ran alone in this suite; dense did not
    assert sum(first.query_type_counts.values()) == QUERY_COUNT
    assert not first.alerts and all(c.degraded_queries == {} for c in first.configurations)

    stored = store.run(first.run_id)
    assert [s.configuration for s in stored] == sorted(CONFIGURATIONS)
    assert all(s.is_baseline and s.dataset == test_set_id for s in stored)  # first runs become baselines
    assert {s.configuration: s.metrics for s in stored} == {
        c.configuration: c.metrics for c in first.configurations
    }
    source = client.get(index=stack.runs_index, id=f"{first.run_id}:hybrid-rrf")["_source"]
    assert source["model_versions"]["dense"]["name"] == f"{stack.settings.models.group}-dense-bge-small-bio"
    assert source["template_versions"]["resources"]["index_template/eval-runs"]
    assert source["configuration_spec"]["fusion_method"] == "rrf" and source["tenant_id"] == TENANT
    labels = {"configuration": "hybrid-rrf", "dataset": test_set_id}
    assert _value(registry, "biohybrid_eval_metric", metric="ndcg@10", **labels) == pytest.approx(
        hybrid.metrics["ndcg@10"]
    )
    assert _value(registry, "biohybrid_eval_recall_drop_alert", metric="recall@10", **labels) == 0.0

    # Raise the stored baseline's Recall@10 above what the stack can give: the next run alerts.
    raised = hybrid.metrics["recall@10"] + 2 * stack.evaluation.alert.margin + 0.01
    client.update(
        index=stack.runs_index,
        id=f"{first.run_id}:hybrid-rrf",
        body={"doc": {"metrics": {"recall@10": raised}}},
        params={"refresh": "true"},
    )
    second = evaluate(request, service, store, settings=stack.evaluation, gauges=gauges)
    assert second.alerts == ["hybrid-rrf"]
    assert second.configurations[1].baseline_run_id == first.run_id
    assert second.configurations[1].metrics == pytest.approx(hybrid.metrics)  # the same searches again
    assert _value(registry, "biohybrid_eval_recall_drop_alert", metric="recall@10", **labels) == 1.0
    assert _value(registry, "biohybrid_eval_baseline_metric", metric="recall@10", **labels) == pytest.approx(
        raised
    )
    assert not store.run(second.run_id)[0].is_baseline

    store.mark_baseline(second.run_id, "hybrid-rrf")
    baseline = store.baseline("hybrid-rrf", test_set_id)
    assert baseline is not None and baseline.run_id == second.run_id
    flagged = client.count(
        index=stack.runs_index,
        body={
            "query": {
                "bool": {
                    "filter": [{"term": {"configuration": "hybrid-rrf"}}, {"term": {"is_baseline": True}}]
                }
            }
        },
    )
    assert flagged["count"] == 1


def test_cli_writes_trec_runs_results_and_report(stack: EvalStack, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config")
    evaluate_command.add_parsers(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        [
            "evaluate",
            f"{stack.folder}:dev",
            "--configurations",
            ",".join(CONFIGURATIONS),
            "--eval-config",
            str(stack.evaluation_file),
            "--out",
            str(tmp_path),
            "--no-store",
            "--no-progress",
        ]
    )
    assert args.handler(stack.settings, args) == 0
    [run_dir] = tmp_path.iterdir()
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    qrels = read_qrels(stack.folder / "qrels" / "dev.tsv")
    for configuration in results["configurations"]:
        run = read_trec_run(run_dir / "runs" / f"{configuration['configuration']}.trec")
        # The TREC file alone gives back the metrics of the run (same order, same scores).
        assert mean_metrics(qrels, run, results["metrics"]) == pytest.approx(configuration["metrics"])
    report = (run_dir / "report.md").read_text(encoding="utf-8")
    assert f"--eval-config {stack.evaluation_file}" in report and "CPU cores" in report
    assert (run_dir / "metric_by_configuration.png").stat().st_size > 1000
    assert (run_dir / "per_query_type.png").stat().st_size > 1000
    assert not results["stored"]


def test_a_run_survives_queries_that_fail_for_real(client: OpenSearch, stack: EvalStack) -> None:
    """The corpus index is closed after the second query (a real fault of the real node): the later
    queries fail twice (tried once more), are recorded as degraded with OpenSearch's error, score 0, and
    the run completes; the first two are measured as usual."""
    service = SearchService(client, stack.settings)
    request = EvaluateRequest(test_set_id=f"{stack.folder}:dev", configurations=["bm25"], store=False)

    def close_after_two(configuration: str, done: int, total: int) -> None:
        if done == 2:
            client.indices.close(index=stack.index)

    try:
        result = evaluate(request, service, None, settings=stack.evaluation, progress=close_after_two)
    finally:
        client.indices.open(index=stack.index, wait_for_active_shards="all")
    [bm25] = result.configurations
    failed = QUERY_COUNT - 2
    assert bm25.degraded_queries == {"query_failed": failed}
    assert len(bm25.degraded_detail) == failed
    for reasons in bm25.degraded_detail.values():
        assert len(reasons) == 1 and reasons[0].startswith("query_failed: ")
        assert "index_closed" in reasons[0], reasons[0]
    healthy = evaluate(request, service, None, settings=stack.evaluation)
    assert healthy.configurations[0].degraded_queries == {}
    # The failed queries scored 0, the others as in a healthy run: the mean is at most the healthy one.
    assert bm25.metrics["recall@100"] <= healthy.configurations[0].metrics["recall@100"]
