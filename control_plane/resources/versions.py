"""The OpenSearch versions the product supports, and the settings a version cannot honour.

Two versions are built, provisioned and tested here: 3.6.0 (the local node, the 3-node cluster) and
2.19.1 (the secured node: the newest version whose security plugin the registry serves; see
ansible/inventories/local-secure). A setting that needs a later version (SEISMIC, 3.3) is refused on an
earlier node with a message naming both, before anything is written; a version outside the list is
reported by ``biohybrid status`` and ``apply`` (it may work, but nothing here has checked it).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from control_plane.config.settings import Settings
from control_plane.errors import BiohybridError
from control_plane.resources.catalog import Resource, ResourceKind

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version:
        """``3.6.0``, or a build's ``3.6.0-SNAPSHOT``; anything else is a ValueError naming the text."""
        found = _VERSION.match(text.strip())
        if found is None:
            raise ValueError(f"not an OpenSearch version: {text!r} (expected MAJOR.MINOR.PATCH)")
        return cls(*(int(part) for part in found.groups()))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


SUPPORTED_VERSIONS: tuple[Version, ...] = (Version(2, 19, 1), Version(3, 6, 0))
# The hybrid query's own ``filter`` (2.19.1 answers "Field is not supported by [hybrid] query"): the
# control API's request filters each sub-query instead there (search/request.py).
HYBRID_FILTER_SINCE = Version(3, 0, 0)


@dataclass(frozen=True)
class VersionBound:
    """A setting value that needs OpenSearch ``since`` or later."""

    setting: str
    since: Version
    feature: str
    in_use: Callable[[Settings], bool]


# The score-ranker-processor's ``combination.parameters.weights`` (weighted RRF) and its
# ``combination.rank_constant``: both neural-search 3.1 (RRFProcessorFactory). Before, the factory reads
# the rank constant from ``combination.parameters.rank_constant`` and passes the parameters to the RRF
# normalization, which refuses any other (weights); a ``combination.rank_constant`` there is ignored
# without a word (k stays 60). ``legacy_rrf_form`` writes the earlier form.
WEIGHTED_RRF_SINCE = Version(3, 1, 0)
RRF_RANK_CONSTANT_SINCE = Version(3, 1, 0)

VERSION_BOUNDS: tuple[VersionBound, ...] = (
    VersionBound(
        "fusion.rrf.weights",
        WEIGHTED_RRF_SINCE,
        "the score-ranker-processor's weights (weighted RRF)",
        lambda settings: settings.fusion.rrf.weights is not None,
    ),
    VersionBound(
        "index.sparse.method: seismic",
        Version(3, 3, 0),
        "neural-search's sparse_vector field (SEISMIC)",
        lambda settings: settings.index.sparse.method == "seismic",
    ),
)


@dataclass(frozen=True)
class ProcessorOption:
    """An option of an ingest or search-pipeline processor (``option``: its path inside the processor's
    configuration, keys and list positions) that a version earlier than ``since`` cannot take: left out
    there (or set to ``earlier_value``), and the processor does without it (``without_it`` says what
    that costs). ``since`` is the first version known to take
    it among those checked (2.19.1 refuses, 3.6.0 takes; the versions between were not tried)."""

    kind: ResourceKind
    processor: str
    option: tuple[str | int, ...]
    since: Version
    without_it: str
    # What the option becomes on an earlier version: left out (the default), or this value (a connector
    # whose request body names the option still gets one).
    earlier_value: Any = None
    left_out: bool = True


PROCESSOR_OPTIONS: tuple[ProcessorOption, ...] = (
    *(
        # 2.19.1: "processor [text_embedding] doesn't support one or more provided configuration
        # parameters [skip_existing]", and the whole ingest pipeline is refused.
        ProcessorOption(
            ResourceKind.INGEST_PIPELINE,
            processor,
            ("skip_existing",),
            Version(3, 0, 0),
            "every ingested chunk is sent to the model, changed or not",
        )
        for processor in ("text_embedding", "sparse_encoding")
    ),
    # 2.19.1: the clinical rewrite's query passes through ml-commons' ml_inference as JSON whose numbers
    # come back as floats, and the k-NN parser refuses "ef_search value must be an integer" (400). null:
    # the rewrite connector's request body still names ef_search, and the rewrite then sets none.
    ProcessorOption(
        ResourceKind.SEARCH_PIPELINE,
        "ml_inference",
        ("model_config", "ef_search"),
        Version(3, 0, 0),
        "the clinical pipelines' neural clause searches HNSW with k (search.candidate_depth) candidates",
        earlier_value=None,
        left_out=False,
    ),
)


@dataclass(frozen=True)
class VersionedResource:
    """Resources (``names``: exact names) a version earlier than ``since`` cannot run at all: not
    installed there, and ``apply`` says why."""

    kind: ResourceKind
    names: frozenset[str]
    since: Version
    why: str


VERSIONED_RESOURCES: tuple[VersionedResource, ...] = (
    # 2.19.1: the clinical rewrite hands the question to the rerank processor through the request's ext,
    # which 2.19's ml_inference cannot write (the rerank fails: NullPointerException on
    # RerankSearchExtBuilder), and a request that carries ext.rerank itself is refused once rewritten
    # ("unknown field [query_context]"). A rerank on 2.19.1: hybrid-*-rerank, or /v1/search.
    VersionedResource(
        ResourceKind.SEARCH_PIPELINE,
        frozenset({"clinical-minmax-rerank", "clinical-rrf-rerank"}),
        Version(3, 0, 0),
        "2.19's ml_inference cannot hand the question to the rerank processor (ext.rerank)",
    ),
)


def for_version(version: Version, resources: Iterable[Resource]) -> list[Resource]:
    """``resources`` as ``version`` reads them: those it cannot run left out (``left_out_on``), and each
    processor option it lacks left out or replaced."""
    lacking = [option for option in PROCESSOR_OPTIONS if version < option.since]
    gone = {label for label, _ in left_out_on(version, resources)}
    return [
        _in_form_of(version, _without(resource, lacking))
        for resource in resources
        if resource.label not in gone
    ]


def _in_form_of(version: Version, resource: Resource) -> Resource:
    if resource.kind is not ResourceKind.SEARCH_PIPELINE:
        return resource
    return replace(resource, body=pipeline_for_version(version, resource.body))


def pipeline_for_version(version: Version, pipeline: dict[str, Any]) -> dict[str, Any]:
    """A search pipeline's body as ``version`` reads it (the score-ranker's rank constant moved where a
    node before 3.1 looks for it); the same body otherwise."""
    return legacy_rrf_form(pipeline) if version < RRF_RANK_CONSTANT_SINCE else pipeline


def legacy_rrf_form(pipeline: dict[str, Any]) -> dict[str, Any]:
    """A copy with each score-ranker's ``combination.rank_constant`` moved to
    ``combination.parameters.rank_constant`` (where neural-search before 3.1 reads it)."""
    body = copy.deepcopy(pipeline)
    for entry in body.get("phase_results_processors", ()):
        combination = (entry.get("score-ranker-processor") or {}).get("combination")
        if isinstance(combination, dict) and "rank_constant" in combination:
            parameters = combination.setdefault("parameters", {})
            parameters["rank_constant"] = combination.pop("rank_constant")
    return body


def left_out_on(version: Version, resources: Iterable[Resource]) -> list[tuple[str, str]]:
    """(label, why) of each resource ``version`` cannot run."""
    return [
        (resource.label, f"needs OpenSearch {bound.since}+: {bound.why}")
        for resource in resources
        for bound in VERSIONED_RESOURCES
        if version < bound.since and resource.kind is bound.kind and resource.name in bound.names
    ]


def _without(resource: Resource, lacking: list[ProcessorOption]) -> Resource:
    options = [option for option in lacking if option.kind is resource.kind]
    if not options:
        return resource
    body: dict[str, Any] = copy.deepcopy(resource.body)
    for field in ("processors", "request_processors", "response_processors", "phase_results_processors"):
        for entry in body.get(field, ()):
            for option in options:
                *parents, leaf = option.option
                config = entry.get(option.processor)
                for parent in parents:
                    config = _step(config, parent)
                if isinstance(config, dict) and leaf in config:
                    if option.left_out:
                        del config[leaf]
                    else:
                        config[leaf] = option.earlier_value
    return replace(resource, body=body)


def _step(node: Any, key: str | int) -> Any:
    if isinstance(key, int):
        return node[key] if isinstance(node, list) and -len(node) <= key < len(node) else None
    return node.get(key) if isinstance(node, dict) else None


class UnsupportedSettingError(BiohybridError, ValueError):
    """A setting asks for what the node's OpenSearch version does not have."""


def is_supported(version: Version) -> bool:
    return version in SUPPORTED_VERSIONS


def support_line(version: Version) -> str:
    """What ``status`` prints: the version and whether the product is tested on it."""
    listed = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
    verdict = "supported" if is_supported(version) else "NOT a supported version"
    return f"{version} ({verdict}; supported: {listed})"


def unhonoured_settings(version: Version, settings: Settings) -> list[str]:
    """One message per setting in use that ``version`` cannot honour, naming the version, the setting and
    the version it needs."""
    return [
        f"OpenSearch {version} cannot honour {bound.setting}: {bound.feature} needs {bound.since} or later "
        f"(change the setting, or run OpenSearch {bound.since}+)"
        for bound in VERSION_BOUNDS
        if version < bound.since and bound.in_use(settings)
    ]


def check_settings_for(version: Version, settings: Settings) -> None:
    """Refuse settings ``version`` cannot honour, before anything reaches the node."""
    problems = unhonoured_settings(version, settings)
    if problems:
        raise UnsupportedSettingError("; ".join(problems))
