"""What POST /v1/evaluate does: the request and response models and ``evaluate``, which runs the
configurations through SearchService, stores the run in eval-runs and sets the gauges."""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from opensearchpy import OpenSearch
from pydantic import BaseModel, ConfigDict, Field

from control_plane.config.settings import Settings
from control_plane.errors import BadRequestError, UnavailableError
from control_plane.evaluation.gauges import EvaluationGauges
from control_plane.evaluation.provenance import collect_versions
from control_plane.evaluation.runner import ConfigurationResult, ProgressCallback, SuiteResult
from control_plane.evaluation.service_retriever import SearchServiceRetriever, evaluation_service
from control_plane.evaluation.settings import EvaluationSettings, load_evaluation_settings
from control_plane.evaluation.store import EvalRunStore, RunContext
from control_plane.evaluation.suite import RecordedRun, SuitePlan, execute, plan_suite, record
from control_plane.testsets.catalog import KNOWN_TEST_SET_IDS

if TYPE_CHECKING:
    from control_plane.search.service import SearchService

log = logging.getLogger(__name__)


class TestSetDataMissingError(UnavailableError):
    """A known test set whose files this server lacks (503: it can be fetched, then asked again)."""


class EvaluateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    test_set_id: str = Field(min_length=1, description="e.g. nfcorpus/dev, nfcorpus/stratified")
    configurations: list[str] | None = Field(
        None, description="names such as bm25, hybrid-rrf+rerank; default: the configured suite"
    )
    metrics: list[str] | None = Field(None, description="e.g. ndcg@10, recall@100; default: the configured")
    limit: int | None = Field(None, ge=1, description="only the first N judged queries")
    store: bool = Field(True, description="store the run in eval-runs (and compare with its baseline)")


class PairedTestSummary(BaseModel):
    mean_difference: float
    p_value: float
    significant: bool
    n: int
    exact: bool


class ConfigurationSummary(BaseModel):
    configuration: str
    metrics: dict[str, float]
    by_query_type: dict[str, dict[str, float]]
    component_share: dict[str, float]
    exclusive_share: dict[str, float]
    top10_overlap: dict[str, float] = Field(
        description="share of the top 10 also in each component's own top 10 (when run alone)"
    )
    latency_ms: dict[str, float]
    degraded_queries: dict[str, int]
    degraded_detail: dict[str, list[str]] = Field(
        default_factory=dict,
        description="query id -> why it was degraded: dropped components, or query_failed with the error",
    )
    significance: dict[str, PairedTestSummary]
    baseline_run_id: str | None = None
    baseline_metrics: dict[str, float] | None = None
    alert: bool = False


class EvaluateResult(BaseModel):
    run_id: str
    test_set_id: str
    index: str
    query_count: int
    query_type_counts: dict[str, int]
    metrics: list[str]
    significance_against: str | None
    configurations: list[ConfigurationSummary]
    stored: bool
    alerts: list[str] = Field(description="configurations whose alert metric fell below their baseline")


def _summary(result: ConfigurationResult, recorded: RecordedRun, alpha: float) -> ConfigurationSummary:
    return ConfigurationSummary(
        configuration=result.name,
        metrics=result.metrics,
        by_query_type=result.by_query_type,
        component_share=result.component_share,
        exclusive_share=result.exclusive_share,
        top10_overlap=result.top10_overlap,
        latency_ms=result.latency_ms,
        degraded_queries=result.degraded_queries,
        degraded_detail={query: list(reasons) for query, reasons in result.degraded_detail.items()},
        significance={
            name: PairedTestSummary(
                mean_difference=test.mean_difference,
                p_value=test.p_value,
                significant=test.p_value < alpha,
                n=test.n,
                exact=test.exact,
            )
            for name, test in result.significance.items()
        },
        baseline_run_id=recorded.baseline_run_id,
        baseline_metrics=recorded.baseline_metrics,
        alert=recorded.alert,
    )


def result_of(
    suite: SuiteResult, recorded: list[RecordedRun], index: str, stored: bool, alpha: float
) -> EvaluateResult:
    by_name = {r.configuration: r for r in recorded}
    return EvaluateResult(
        run_id=suite.run_id,
        test_set_id=suite.test_set_id,
        index=index,
        query_count=suite.query_count,
        query_type_counts=suite.query_type_counts,
        metrics=list(suite.metrics),
        significance_against=suite.baseline,
        configurations=[_summary(r, by_name[r.name], alpha) for r in suite.results],
        stored=stored,
        alerts=[r.configuration for r in recorded if r.alert],
    )


def _run(
    plan: SuitePlan,
    request: EvaluateRequest,
    service: SearchService,
    store: EvalRunStore | None,
    settings: EvaluationSettings,
    tenant_id: str,
    gauges: EvaluationGauges | None,
    progress: ProgressCallback | None,
) -> EvaluateResult:
    index = settings.index_for(plan.evaluation_set.dataset)
    if not service.client.indices.exists(index=index):
        dataset = plan.evaluation_set.dataset
        raise ValueError(
            f"index {index!r} (the corpus of {dataset!r}) does not exist: index it first with "
            f"`biohybrid ingest {dataset} --index {index}` (for NFCorpus: `make nfcorpus`)"
        )
    searcher = evaluation_service(service.client, service.settings, settings.timeouts)
    retriever = SearchServiceRetriever(searcher, tenant_id, index, settings.candidate_depth)
    suite = execute(plan, retriever, settings, progress)
    models, templates = collect_versions(service.client, service.settings)
    context = RunContext(
        index=index,
        tenant_id=tenant_id,
        model_versions=models,
        template_versions=templates,
        host=socket.gethostname(),
        command=f"POST /v1/evaluate {request.model_dump_json(exclude_none=True)}",
    )
    used_store = store if request.store else None
    recorded = record(suite, used_store, context, gauges, settings)
    return result_of(suite, recorded, index, used_store is not None, settings.significance.alpha)


def _plan(request: EvaluateRequest, settings: EvaluationSettings) -> SuitePlan:
    return plan_suite(settings, request.test_set_id, request.configurations, request.metrics, request.limit)


def evaluate(
    request: EvaluateRequest,
    service: SearchService,
    store: EvalRunStore | None,
    *,
    settings: EvaluationSettings | None = None,
    tenant_id: str | None = None,
    gauges: EvaluationGauges | None = None,
    progress: ProgressCallback | None = None,
) -> EvaluateResult:
    """Run, store (when ``request.store`` and a store is given) and gauge one evaluation, searching as
    ``tenant_id`` (default: the evaluation settings' tenant) through a SearchService with the client
    and settings of ``service`` but the evaluation's search budgets (settings ``timeouts``).

    ValueError for an unknown test set, configuration or metric, before any search."""
    chosen = settings or load_evaluation_settings()
    plan = _plan(request, chosen)
    tenant = tenant_id or chosen.tenant_id
    return _run(plan, request, service, store, chosen, tenant, gauges, progress)


def evaluate_job(
    body: Any,
    settings: Settings,
    client: OpenSearch,
    service: SearchService,
    tenant: str,
    gauges: EvaluationGauges | None = None,
    evaluation_settings: EvaluationSettings | None = None,
) -> Callable[[], dict[str, Any]]:
    """For POST /v1/evaluate as a background job: validates the body and resolves the plan now (so a
    bad request fails before the job starts: pydantic ValidationError or BadRequestError), and returns the
    work, which gives the EvaluateResult as JSON."""
    request = EvaluateRequest.model_validate(body)
    if ":" in request.test_set_id:  # the folder form would read (and so probe) the server's file system
        raise BadRequestError(
            f"test_set_id {request.test_set_id!r} has the folder form '<folder>:<split>', which the API does "
            f"not read: name a test set the server knows ({', '.join(KNOWN_TEST_SET_IDS)}, or one of the "
            "evaluation settings' stratified sets), or run `biohybrid evaluate <folder>:<split>` where the "
            "folder is"
        )
    chosen = evaluation_settings or load_evaluation_settings()
    try:
        plan = _plan(request, chosen)
    except FileNotFoundError as exc:  # its data is not on this server: said without the server's paths
        log.warning("test set data missing", extra={"test_set_id": request.test_set_id, "error": str(exc)})
        raise TestSetDataMissingError(
            f"the data of test set {request.test_set_id!r} is not on this server; its operator can fetch "
            "it (`biohybrid datasets fetch`) or point BIOHYBRID_DATASETS_DIR at it (the API log says where "
            "it was looked for)"
        ) from None
    except ValueError as exc:  # an unknown test set, configuration or metric named in the body
        raise BadRequestError(str(exc)) from exc
    from control_plane.search.index_choice import search_index

    # With index.tenant_indices on, the corpus index must be the tenant's (TenantIndexError, 403) now.
    search_index(settings, tenant, chosen.index_for(plan.evaluation_set.dataset))
    store = EvalRunStore(client, settings, chosen.store.index)

    def work() -> dict[str, Any]:
        result = _run(plan, request, service, store, chosen, tenant, gauges, None)
        return result.model_dump(mode="json")

    return work
