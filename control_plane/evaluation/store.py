"""The ``eval-runs`` index: one document per run and configuration, and the baseline of each
(configuration, dataset) that the regression alert compares against.

Mapping: resources/index_templates/index/eval-runs.json (installed by `biohybrid apply`); the store also
creates its index from that same body when it is missing, so a run never gets a dynamic mapping.

Baseline rule: the first run stored for a (configuration, dataset) becomes its baseline; ``mark_baseline``
moves it to a later run (e.g. after an intended change). A dataset is the test set id, with ``[:N]``
when only the first N queries ran, so partial runs never meet full ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.evaluation.runner import ConfigurationResult, SuiteResult
from control_plane.resources.catalog import ResourceKind, load_resources

TEMPLATE_NAME = "eval-runs"
# What a StoredRun reads of a document.
STORED_FIELDS = ("run_id", "configuration", "dataset", "timestamp", "metrics", "is_baseline")
# The most runs ``history`` returns (one search page).
MAX_HISTORY = 1000


@dataclass(frozen=True)
class RunContext:
    """Where and with what a suite ran (written into every document of the run)."""

    index: str
    tenant_id: str
    model_versions: Mapping[str, Any]
    template_versions: Mapping[str, Any]
    host: str
    command: str


@dataclass(frozen=True)
class StoredRun:
    doc_id: str
    run_id: str
    configuration: str
    dataset: str
    timestamp: str
    metrics: dict[str, float]
    is_baseline: bool


def document_id(run_id: str, configuration: str) -> str:
    return f"{run_id}:{configuration}"


def run_document(
    suite: SuiteResult, result: ConfigurationResult, context: RunContext, is_baseline: bool
) -> dict[str, Any]:
    """The stored form of one configuration's result (pure; the mapping's fields)."""
    return {
        "run_id": suite.run_id,
        "configuration": result.name,
        "configuration_spec": result.configuration.model_dump(mode="json", exclude_none=True),
        "dataset": suite.test_set_id,
        "corpus": suite.dataset,
        "index": context.index,
        "tenant_id": context.tenant_id,
        "timestamp": suite.started_at.isoformat(),
        "duration_s": (suite.finished_at - suite.started_at).total_seconds(),
        "query_count": suite.query_count,
        "query_type_counts": dict(suite.query_type_counts),
        "metrics": dict(result.metrics),
        "by_query_type": result.by_query_type,
        "component_share": result.component_share,
        "exclusive_share": result.exclusive_share,
        "top10_overlap": result.top10_overlap,
        "latency_ms": result.latency_ms,
        "degraded_queries": result.degraded_queries,
        "significance": {name: asdict(test) for name, test in result.significance.items()},
        "significance_against": suite.baseline if result.significance else None,
        "is_baseline": is_baseline,
        "model_versions": dict(context.model_versions),
        "template_versions": dict(context.template_versions),
        "host": context.host,
        "command": context.command,
    }


def _stored(hit: Mapping[str, Any]) -> StoredRun:
    source = hit["_source"]
    return StoredRun(
        doc_id=str(hit["_id"]),
        run_id=str(source["run_id"]),
        configuration=str(source["configuration"]),
        dataset=str(source["dataset"]),
        timestamp=str(source["timestamp"]),
        metrics={name: float(value) for name, value in source.get("metrics", {}).items()},
        is_baseline=bool(source.get("is_baseline", False)),
    )


class EvalRunStore:
    def __init__(self, client: OpenSearch, settings: Settings, index: str = "eval-runs") -> None:
        self.client = client
        self.settings = settings
        self.index = index

    def ensure_index(self) -> None:
        """Create the index with the eval-runs template's settings and mappings if it does not exist."""
        if self.client.indices.exists(index=self.index):
            return
        [template] = [
            r
            for r in load_resources(self.settings)
            if r.kind is ResourceKind.INDEX_TEMPLATE and r.name == TEMPLATE_NAME
        ]
        self.client.indices.create(index=self.index, body=template.body["template"])

    def save(self, suite: SuiteResult, context: RunContext) -> list[StoredRun]:
        """Store every configuration's result; the first run of a (configuration, dataset) is its baseline."""
        self.ensure_index()
        stored = []
        for result in suite.results:
            is_baseline = self.baseline(result.name, suite.test_set_id) is None
            document = run_document(suite, result, context, is_baseline)
            doc_id = document_id(suite.run_id, result.name)
            self.client.index(index=self.index, id=doc_id, body=document, params={"refresh": "wait_for"})
            stored.append(_stored({"_id": doc_id, "_source": document}))
        return stored

    def _search(self, configuration: str, dataset: str, baseline_only: bool) -> StoredRun | None:
        if not self.client.indices.exists(index=self.index):
            return None
        filters: list[dict[str, Any]] = [
            {"term": {"configuration": configuration}},
            {"term": {"dataset": dataset}},
        ]
        if baseline_only:
            filters.append({"term": {"is_baseline": True}})
        body = {
            "size": 1,
            "query": {"bool": {"filter": filters}},
            "sort": [{"timestamp": "desc"}, {"run_id": "desc"}],
            "_source": list(STORED_FIELDS),
        }
        hits = self.client.search(index=self.index, body=body)["hits"]["hits"]
        return _stored(hits[0]) if hits else None

    def baseline(self, configuration: str, dataset: str) -> StoredRun | None:
        """The latest run flagged as baseline for this configuration and dataset."""
        return self._search(configuration, dataset, baseline_only=True)

    def latest(self, configuration: str, dataset: str) -> StoredRun | None:
        return self._search(configuration, dataset, baseline_only=False)

    def history(self, tenant_id: str, dataset: str | None = None, size: int = 200) -> list[StoredRun]:
        """The tenant's latest ``size`` stored runs (of ``dataset`` when given), oldest first: what the
        relevance console plots over time. No index yet: none."""
        if not self.client.indices.exists(index=self.index):
            return []
        filters: list[dict[str, Any]] = [{"term": {"tenant_id": tenant_id}}]
        if dataset is not None:
            filters.append({"term": {"dataset": dataset}})
        body = {
            "size": min(size, MAX_HISTORY),
            "query": {"bool": {"filter": filters}},
            "sort": [{"timestamp": "desc"}, {"run_id": "desc"}, {"configuration": "asc"}],
            "_source": list(STORED_FIELDS),
        }
        hits = self.client.search(index=self.index, body=body)["hits"]["hits"]
        return [_stored(hit) for hit in reversed(hits)]

    def run(self, run_id: str) -> list[StoredRun]:
        """Every configuration stored for ``run_id``."""
        body = {"size": 1000, "query": {"term": {"run_id": run_id}}, "sort": [{"configuration": "asc"}]}
        return [_stored(hit) for hit in self.client.search(index=self.index, body=body)["hits"]["hits"]]

    def mark_baseline(self, run_id: str, configuration: str) -> StoredRun:
        """Make this stored run the baseline of its configuration and dataset (unflagging the others)."""
        doc_id = document_id(run_id, configuration)
        found = self.client.get(index=self.index, id=doc_id, params={"ignore": 404})
        if not found.get("found"):
            raise ValueError(f"no stored run {doc_id!r} in index {self.index!r}")
        chosen = _stored(found)
        self.client.update_by_query(
            index=self.index,
            body={
                "query": {
                    "bool": {
                        "filter": [
                            {"term": {"configuration": configuration}},
                            {"term": {"dataset": chosen.dataset}},
                            {"term": {"is_baseline": True}},
                        ]
                    }
                },
                "script": {"source": "ctx._source.is_baseline = false", "lang": "painless"},
            },
            params={"refresh": "true", "conflicts": "proceed"},
        )
        self.client.update(
            index=self.index, id=doc_id, body={"doc": {"is_baseline": True}}, params={"refresh": "true"}
        )
        return StoredRun(**{**asdict(chosen), "is_baseline": True})
