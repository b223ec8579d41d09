"""The resources the project installs: which JSON file is which kind of OpenSearch object.

index_templates/component/*.json -> component templates, index_templates/index/*.json -> composable
index templates, search_pipelines/*.json -> search pipelines (each also in an ``-explain`` form that
adds per-sub-query scores). The file name is the resource name.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from enum import StrEnum
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from control_plane.config.settings import Settings
from control_plane.resources.render import flatten, render

REPO_ROOT = Path(__file__).resolve().parents[2]
EXPLAIN_SUFFIX = "-explain"


class ResourceKind(StrEnum):
    COMPONENT_TEMPLATE = "component_template"
    INDEX_TEMPLATE = "index_template"
    SEARCH_PIPELINE = "search_pipeline"


_FOLDERS: dict[ResourceKind, str] = {
    ResourceKind.COMPONENT_TEMPLATE: "index_templates/component",
    ResourceKind.INDEX_TEMPLATE: "index_templates/index",
    ResourceKind.SEARCH_PIPELINE: "search_pipelines",
}


@dataclass(frozen=True)
class Resource:
    kind: ResourceKind
    name: str
    body: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.kind.value}/{self.name}"


def project_version() -> str:
    try:
        return version("biomed-hybrid-search")
    except PackageNotFoundError:
        return "0+unknown"


def render_params(settings: Settings) -> dict[str, Any]:
    """Parameters the resource files may use: every setting by dotted key, plus derived values."""
    params = flatten(settings.model_dump(mode="json"))
    params["fusion.weights_in_order"] = settings.fusion.weights.in_order()
    params["resources.version"] = project_version()
    return params


def load_resources(settings: Settings, root: Path = REPO_ROOT) -> list[Resource]:
    """Render every resource file under ``root`` in install order (components before index templates)."""
    params = render_params(settings)
    resources: list[Resource] = []
    for kind, folder in _FOLDERS.items():
        for path in sorted((root / folder).glob("*.json")):
            template = json.loads(path.read_text(encoding="utf-8"))
            body = render(template, params, source=str(path.relative_to(root)))
            resources.append(Resource(kind, path.stem, body))
            if kind is ResourceKind.SEARCH_PIPELINE:
                resources.append(Resource(kind, path.stem + EXPLAIN_SUFFIX, with_score_explanation(body)))
    return resources


def with_score_explanation(pipeline: dict[str, Any]) -> dict[str, Any]:
    """The explain form of a hybrid pipeline: adds the response processor that reports, per hit, each
    sub-query's raw and normalised score (queries must also set ``"explain": true``)."""
    explained = copy.deepcopy(pipeline)
    explained["description"] = f"{pipeline.get('description', '')} With per-sub-query score explanation."
    explained.setdefault("response_processors", []).append({"hybrid_score_explanation": {}})
    return explained
