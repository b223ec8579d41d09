"""Settings: one YAML file validated into typed models at start-up.

Layers, later wins: the packaged defaults.yaml, the file named by ``--config`` or ``BIOHYBRID_CONFIG``,
then environment variables ``BIOHYBRID__SECTION__KEY=value`` (values parsed as YAML scalars). A bad
value stops start-up with a ConfigError naming the dotted key.

``Settings`` assembles the sections; their models live beside it, one module per concern
(``opensearch_settings``, ``index_settings``, ``fusion_settings``, ``search_settings``, ``models_settings``,
``api_settings``, ``recording_settings``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError, model_validator

from control_plane.config.api_settings import ApiSettings
from control_plane.config.fusion_settings import FusionSettings
from control_plane.config.index_settings import IndexSettings
from control_plane.config.models_settings import IngestSettings, ModelsSettings
from control_plane.config.opensearch_settings import OpenSearchSettings
from control_plane.config.recording_settings import EventsSettings, LedgerSettings
from control_plane.config.search_settings import SearchSettings
from control_plane.config.strict import StrictSettings
from control_plane.config.tenancy import tenant_name_problem
from control_plane.errors import BiohybridError
from control_plane.locations import CONFIG_DIR

DEFAULTS_FILE = CONFIG_DIR / "defaults.yaml"
LOCAL_FILE = CONFIG_DIR / "local.yaml"
ENV_CONFIG_FILE = "BIOHYBRID_CONFIG"
ENV_PREFIX = "BIOHYBRID__"


class ConfigError(BiohybridError, ValueError):
    """A configuration value is missing or invalid; the message names the key."""


class Settings(StrictSettings):
    """Every setting of the control plane, the API and the inference service's clients."""

    opensearch: OpenSearchSettings = OpenSearchSettings()
    index: IndexSettings = IndexSettings()
    fusion: FusionSettings = FusionSettings()
    models: ModelsSettings = ModelsSettings()
    search: SearchSettings = SearchSettings()
    ingest: IngestSettings = IngestSettings()
    api: ApiSettings = ApiSettings()
    ledger: LedgerSettings = LedgerSettings()
    events: EventsSettings = EventsSettings()

    @property
    def rerank_requires_gpu(self) -> bool:
        """Whether a rerank may run only on a GPU (elsewhere the fused order at once, reason
        gpu_unavailable): ``search.rerank_requires_gpu``, or ``rerank`` in ``models.gpu_bound``. Both rerank
        paths send it: /v1/search's call to the service and the rerank connector."""
        return self.search.rerank_requires_gpu or "rerank" in self.models.gpu_bound

    @model_validator(mode="after")
    def _tenants_can_name_indices(self) -> Settings:
        if self.index.tenant_indices:
            problems = sorted({p for key in self.api.keys if (p := tenant_name_problem(key.tenant))})
            if problems:
                raise ValueError(f"api.keys: {'; '.join(problems)}")
        return self

    @model_validator(mode="after")
    def _two_phase_needs_rank_features(self) -> Settings:
        if self.search.sparse_two_phase.enabled and self.index.sparse.method == "seismic":
            raise ValueError(
                "search.sparse_two_phase.enabled: OpenSearch refuses the two-phase processor on a SEISMIC "
                "sparse_vector field; turn it off or set index.sparse.method: rank_features"
            )
        return self


def load_settings(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Load defaults, then the given (or $BIOHYBRID_CONFIG) file, then BIOHYBRID__* variables."""
    env = os.environ if environ is None else environ
    data = read_yaml_mapping(DEFAULTS_FILE)
    chosen = path if path is not None else env.get(ENV_CONFIG_FILE)
    if chosen:
        merge_settings(data, read_yaml_mapping(Path(chosen)))
    merge_settings(data, env_overrides(env))
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        where = (
            f" in {chosen} or the {ENV_PREFIX}* variables" if chosen else f" in the {ENV_PREFIX}* variables"
        )
        raise ConfigError(
            f"invalid configuration{where}: {describe_errors(exc)} (every setting, with its default: "
            f"{DEFAULTS_FILE})"
        ) from None


def describe_errors(exc: ValidationError) -> str:
    """A validation error as ``dotted.key: problem; ...`` (what every settings file's errors say); a key
    the model does not know is named as such, with the fix."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {_problem(err)}" for err in exc.errors()
    )


def _problem(error: Mapping[str, Any]) -> str:
    if error.get("type") == "extra_forbidden":
        return "not a known key (remove it or check its spelling)"
    return str(error["msg"])


def read_yaml_mapping(path: Path, what: str = "configuration file") -> dict[str, Any]:
    """A YAML file that must hold a mapping; ConfigError naming the file otherwise."""
    if not path.is_file():
        raise ConfigError(f"{what} not found: {path}")
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML: {exc}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{what} {path} must hold a mapping at the top level")
    return loaded


def env_overrides(env: Mapping[str, str], prefix: str = ENV_PREFIX) -> dict[str, Any]:
    """``PREFIXSECTION__KEY=value`` variables as a nested mapping (values parsed as YAML scalars)."""
    overrides: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(prefix):
            continue
        keys = [part.lower() for part in name[len(prefix) :].split("__") if part]
        node = overrides
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = yaml.safe_load(raw)
    return overrides


def merge_settings(base: dict[str, Any], extra: Mapping[str, Any]) -> None:
    """Merge ``extra`` into ``base`` in place, mappings key by key, anything else replaced."""
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            merge_settings(base[key], value)
        else:
            base[key] = value
