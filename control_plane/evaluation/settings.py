"""Evaluation settings: config/evaluation.yaml validated into typed models (a bad value names its key).

Kept apart from the node settings because the suite changes with experiments, not with the cluster.
``BIOHYBRID_EVAL_CONFIG`` (or ``--eval-config``) names another file that replaces the packaged one.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from apscheduler.triggers.cron import CronTrigger
from pydantic import Field, ValidationError, field_validator, model_validator

from control_plane.config.settings import (
    ConfigError,
    describe_errors,
    env_overrides,
    merge_settings,
    read_yaml_mapping,
)
from control_plane.config.strict import StrictSettings
from control_plane.evaluation.configurations import EvalConfiguration, resolve_configurations
from control_plane.locations import CONFIG_DIR
from control_plane.measures.metrics import metric_by_name

EVALUATION_FILE = CONFIG_DIR / "evaluation.yaml"
ENV_EVALUATION_FILE = "BIOHYBRID_EVAL_CONFIG"
ENV_EVALUATION_PREFIX = "BIOHYBRID_EVAL__"
MAX_DEPTH = 200  # SearchSpec.size's upper bound


def check_metric_names(names: list[str]) -> list[str]:
    """The names, after checking each is a known metric and none repeats (ValueError otherwise)."""
    for name in names:
        metric_by_name(name)  # ValueError listing the valid names
    if len(set(names)) != len(names):
        raise ValueError(f"metrics repeat a name: {names}")
    return names


class SignificanceSettings(StrictSettings):
    """The paired randomization test of every configuration against the baseline configuration."""

    permutations: int = Field(10000, ge=100, description="random sign flips per test")
    seed: int = Field(20240601, description="the test's random seed (runs are reproducible)")
    alpha: float = Field(
        0.05, gt=0, lt=1, description="the level below which a difference is reported significant"
    )


class StoreSettings(StrictSettings):
    """Where runs are stored (their metrics with model and template versions)."""

    index: str = Field(
        "eval-runs", pattern=r"^[a-z0-9][a-z0-9_\-]*$", description="the index of stored runs and baselines"
    )


class AlertSettings(StrictSettings):
    """The regression alert (biohybrid_eval_recall_drop_alert)."""

    metric: str = Field("recall@10", description="the metric compared with the stored baseline run")
    margin: float = Field(
        0.02,
        ge=0,
        le=1,
        description="the alert is 1 when the metric falls more than this (absolute) below the baseline run "
        "of the same configuration and dataset",
    )

    @field_validator("metric")
    @classmethod
    def _metric(cls, value: str) -> str:
        metric_by_name(value)
        return value


class ScheduleSettings(StrictSettings):
    """The scheduled evaluation the control API runs (APScheduler)."""

    enabled: bool = Field(False, description="run the schedule in the control API")
    cron: str | None = Field(
        "0 3 * * *",
        description="crontab (minute hour day month weekday, UTC); exactly one of cron and interval_s",
    )
    interval_s: float | None = Field(
        None, gt=0, description="seconds between runs; exactly one of cron and interval_s"
    )
    test_set_id: str = Field("nfcorpus/dev", description="the test set each run searches")
    configurations: list[str] = Field(
        default_factory=lambda: ["bm25", "hybrid-rrf"], description="the configurations each run compares"
    )
    metrics: list[str] | None = Field(None, description="the metrics (null: the top-level metrics)")
    limit: int | None = Field(None, ge=1, description="only the first N judged queries (null: all)")
    run_at_start: bool = Field(
        False,
        description="also run once as soon as the scheduler starts (the local stack shows figures in "
        "/metrics at once)",
    )

    @field_validator("cron")
    @classmethod
    def _crontab(cls, value: str | None) -> str | None:
        if value is not None:
            CronTrigger.from_crontab(value, timezone="UTC")  # ValueError naming the bad field
        return value

    @model_validator(mode="after")
    def _one_trigger(self) -> ScheduleSettings:
        if (self.cron is None) == (self.interval_s is None):
            raise ValueError("set exactly one of schedule.cron and schedule.interval_s (the other null)")
        return self


class StratifiedSetSettings(StrictSettings):
    """A stratified query set: queries of dev/train splits, classified by query type, at most per_type
    of each."""

    sources: list[str] = Field(
        min_length=1, description="the test sets drawn from (dev or train splits only)"
    )
    per_type: int = Field(50, ge=1, description="queries of each type (exact-term, paraphrase, complex)")
    seed: str = Field("stratified-v1", description="the draw's seed")

    @field_validator("sources")
    @classmethod
    def _no_test_split(cls, value: list[str]) -> list[str]:
        tests = [source for source in value if source.endswith(("/test", ":test"))]
        if tests:
            raise ValueError(f"stratified sets draw from dev/train splits only, not {tests}")
        return value


class TimeoutSettings(StrictSettings):
    """Search budgets for evaluation runs, which measure quality, not the latency guard: the API's
    300 ms encoding budget would drop components on a busy machine and blur the comparison."""

    component_ms: int = Field(10000, gt=0, description="replaces search.component_timeout_ms in a run")
    rerank_ms: int = Field(60000, gt=0, description="replaces search.rerank_timeout_ms in a run")
    opensearch_ms: int = Field(60000, gt=0, description="replaces search.opensearch_timeout_ms in a run")


class EvaluationSettings(StrictSettings):
    """The evaluation suite: named configurations, what a run measures, where results go, the schedule
    and the regression alert (control_plane/config/evaluation.yaml; another file with --eval-config or
    BIOHYBRID_EVAL_CONFIG, then BIOHYBRID_EVAL__SECTION__KEY variables)."""

    configurations: dict[str, EvalConfiguration] = Field(
        description="named configurations; a name may add variants with +: hybrid-rrf+rerank, bm25+boosts, "
        "+rerank@N"
    )
    suite: list[str] = Field(description="what a run compares when no configuration is named")
    baseline_configuration: str = Field(
        "bm25", description="paired significance of every configuration against this one"
    )
    metrics: list[str] = Field(
        default_factory=lambda: ["ndcg@10", "recall@10", "recall@100", "mrr@10"],
        description="what a run measures (recall@K, ndcg@K, mrr@K, p@K, map)",
    )
    depth: int = Field(
        100, ge=10, le=MAX_DEPTH, description="documents each query asks for (runs are at document level)"
    )
    candidate_depth: int = Field(
        300, ge=1, le=1000, description="chunks per component behind those documents"
    )
    tenant_id: str = Field("default", description="the tenant a run searches as")
    timeouts: TimeoutSettings = TimeoutSettings()
    indices: dict[str, str] = Field(
        default_factory=dict,
        description="dataset (the test set's folder name) -> the index holding its corpus",
    )
    significance: SignificanceSettings = SignificanceSettings()
    store: StoreSettings = StoreSettings()
    alert: AlertSettings = AlertSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    stratified_sets: dict[str, StratifiedSetSettings] = Field(
        default_factory=dict, description="stratified query sets by id (nfcorpus/stratified)"
    )

    @field_validator("configurations", mode="before")
    @classmethod
    def _named(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return {name: {**(spec or {}), "name": name} for name, spec in value.items()}
        return value

    @field_validator("metrics")
    @classmethod
    def _metrics(cls, value: list[str]) -> list[str]:
        return check_metric_names(value)

    @model_validator(mode="after")
    def _names_resolve(self) -> EvaluationSettings:
        if self.baseline_configuration not in self.configurations:
            raise ValueError(
                f"baseline_configuration {self.baseline_configuration!r} is not a configuration "
                f"({', '.join(self.configurations)})"
            )
        resolve_configurations(self.suite, self.configurations)
        resolve_configurations(self.schedule.configurations, self.configurations)
        if self.schedule.metrics is not None:
            check_metric_names(self.schedule.metrics)
        return self

    def resolve(self, names: list[str]) -> list[EvalConfiguration]:
        return resolve_configurations(names, self.configurations)

    def index_for(self, dataset: str) -> str:
        """The index holding a dataset's corpus; ValueError saying where to configure it."""
        try:
            return self.indices[dataset]
        except KeyError:
            raise ValueError(
                f"no index configured for dataset {dataset!r}: add it under `indices` in the evaluation "
                f"settings (known: {', '.join(f'{k} -> {v}' for k, v in self.indices.items()) or 'none'})"
            ) from None


def load_evaluation_settings(
    path: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> EvaluationSettings:
    """Layers, later wins (as for the main settings): the packaged config/evaluation.yaml, the given
    file or ``$BIOHYBRID_EVAL_CONFIG``, then ``BIOHYBRID_EVAL__SECTION__KEY=value`` variables."""
    env = os.environ if environ is None else environ
    data = _read(EVALUATION_FILE)
    overlay = path or env.get(ENV_EVALUATION_FILE)
    if overlay:
        merge_settings(data, _read(Path(overlay)))
    merge_settings(data, env_overrides(env, ENV_EVALUATION_PREFIX))
    chosen = Path(overlay) if overlay else EVALUATION_FILE
    try:
        return EvaluationSettings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid evaluation settings in {chosen}: {describe_errors(exc)}") from None


def _read(path: Path) -> dict[str, Any]:
    return read_yaml_mapping(path, "evaluation settings file")
