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
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from control_plane.config.settings import (
    ConfigError,
    describe_errors,
    env_overrides,
    merge_settings,
    read_yaml_mapping,
)
from control_plane.evaluation.configurations import EvalConfiguration, resolve_configurations
from control_plane.locations import CONFIG_DIR
from control_plane.measures.metrics import metric_by_name

EVALUATION_FILE = CONFIG_DIR / "evaluation.yaml"
ENV_EVALUATION_FILE = "BIOHYBRID_EVAL_CONFIG"
ENV_EVALUATION_PREFIX = "BIOHYBRID_EVAL__"
MAX_DEPTH = 200  # SearchSpec.size's upper bound


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def check_metric_names(names: list[str]) -> list[str]:
    """The names, after checking each is a known metric and none repeats (ValueError otherwise)."""
    for name in names:
        metric_by_name(name)  # ValueError listing the valid names
    if len(set(names)) != len(names):
        raise ValueError(f"metrics repeat a name: {names}")
    return names


class SignificanceSettings(_Strict):
    permutations: int = Field(10000, ge=100)
    seed: int = 20240601
    alpha: float = Field(0.05, gt=0, lt=1)


class StoreSettings(_Strict):
    index: str = Field("eval-runs", pattern=r"^[a-z0-9][a-z0-9_\-]*$")


class AlertSettings(_Strict):
    metric: str = "recall@10"
    margin: float = Field(0.02, ge=0, le=1)

    @field_validator("metric")
    @classmethod
    def _metric(cls, value: str) -> str:
        metric_by_name(value)
        return value


class ScheduleSettings(_Strict):
    enabled: bool = False
    cron: str | None = "0 3 * * *"
    interval_s: float | None = Field(None, gt=0)
    test_set_id: str = "nfcorpus/dev"
    configurations: list[str] = Field(default_factory=lambda: ["bm25", "hybrid-rrf"])
    metrics: list[str] | None = None
    limit: int | None = Field(None, ge=1)
    # Also run once as soon as the scheduler starts (the local stack shows figures in /metrics at once).
    run_at_start: bool = False

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


class StratifiedSetSettings(_Strict):
    sources: list[str] = Field(min_length=1)
    per_type: int = Field(50, ge=1)
    seed: str = "stratified-v1"

    @field_validator("sources")
    @classmethod
    def _no_test_split(cls, value: list[str]) -> list[str]:
        tests = [source for source in value if source.endswith(("/test", ":test"))]
        if tests:
            raise ValueError(f"stratified sets draw from dev/train splits only, not {tests}")
        return value


class TimeoutSettings(_Strict):
    """Search budgets for evaluation runs, which measure quality, not the latency guard: the API's
    300 ms encoding budget would drop components on a busy machine and blur the comparison."""

    component_ms: int = Field(10000, gt=0)
    rerank_ms: int = Field(60000, gt=0)
    opensearch_ms: int = Field(60000, gt=0)


class EvaluationSettings(_Strict):
    configurations: dict[str, EvalConfiguration]
    suite: list[str]
    baseline_configuration: str = "bm25"
    metrics: list[str] = Field(default_factory=lambda: ["ndcg@10", "recall@10", "recall@100", "mrr@10"])
    depth: int = Field(100, ge=10, le=MAX_DEPTH)
    candidate_depth: int = Field(300, ge=1, le=1000)
    tenant_id: str = "default"
    timeouts: TimeoutSettings = TimeoutSettings()
    indices: dict[str, str] = Field(default_factory=dict)
    significance: SignificanceSettings = SignificanceSettings()
    store: StoreSettings = StoreSettings()
    alert: AlertSettings = AlertSettings()
    schedule: ScheduleSettings = ScheduleSettings()
    stratified_sets: dict[str, StratifiedSetSettings] = Field(default_factory=dict)

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
