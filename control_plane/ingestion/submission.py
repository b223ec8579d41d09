"""What an ingest is refused for before anything is written: the CLI and the control API ask the same.

The target index must be one the project's chunk template covers (its ``index_patterns`` as rendered
from the settings, e.g. ``chunks-*``): an index no template covers gets dynamic mappings (the embedding
a plain float, not a ``knn_vector``) and every hybrid query on it fails. The project's own record
indices (the job ledger, eval-runs: every other index template's patterns) and system indices (a name
starting with ``.``) are refused too. The control API also refuses, with 400 and no job, an unknown
chunking strategy and a source that is neither a dataset id (with its folder) nor an existing path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from control_plane.config.settings import Settings
from control_plane.datasets.locate import DatasetsNotFoundError
from control_plane.errors import BadRequestError
from control_plane.ingestion.chunking import STRATEGIES
from control_plane.ingestion.parsers import DATASET_FILES, dataset_files, unknown_sources
from control_plane.resources.catalog import ResourceKind, load_resources

CHUNK_MAPPINGS: Final = "chunk-mappings"
"""The component template that makes an index a chunk index (text, sparse and dense fields)."""
_INDEX_NAME: Final = re.compile(r"^[a-z0-9][a-z0-9_+.\-]*$")


class IngestRefusedError(BadRequestError):
    """An ingest refused before it starts (the control API's 400); the message names what was wrong and
    what would be accepted."""


def index_templates(settings: Settings) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The index patterns of the project's chunk templates (composed of ``chunk-mappings``) and those of
    its other index templates (the ledger's, eval-runs'), as rendered from ``settings``."""
    chunks: list[str] = []
    others: list[str] = []
    for resource in load_resources(settings):
        if resource.kind is not ResourceKind.INDEX_TEMPLATE:
            continue
        patterns = [str(p) for p in resource.body.get("index_patterns", [])]
        (chunks if CHUNK_MAPPINGS in resource.body.get("composed_of", []) else others).extend(patterns)
    return tuple(chunks), tuple(others)


def matches(pattern: str, index: str) -> bool:
    """Whether an index template pattern covers ``index`` (OpenSearch's simple match: ``*`` is any run
    of characters, everything else literal)."""
    return re.fullmatch(".*".join(re.escape(part) for part in pattern.split("*")), index) is not None


def index_problem(index: str, chunk_patterns: Sequence[str], reserved: Sequence[str]) -> str | None:
    """Why chunks cannot go into ``index`` (None: they can). ``chunk_patterns``: the chunk templates'
    index patterns; ``reserved``: names and patterns of indices that hold the project's own records."""
    example = _example(chunk_patterns)
    if index.startswith("."):
        return f"index {index!r} is a system index (its name starts with '.'): name it {example}"
    if not _INDEX_NAME.fullmatch(index):
        return (
            f"index {index!r} is not one index name (lowercase letters, digits, '-', '_', '.', '+'; no "
            f"wildcard, list or capital): name it {example}"
        )
    if any(matches(pattern, index) for pattern in reserved):
        return (
            f"index {index!r} is reserved for the project's own records ({', '.join(reserved)}), not "
            f"chunks: name it {example}"
        )
    if not any(matches(pattern, index) for pattern in chunk_patterns):
        covered = ", ".join(chunk_patterns) or "no chunk template"
        return (
            f"index {index!r} matches no template of this project ({covered}), so it would get no chunk "
            f"mappings (the embedding a plain float, not a knn_vector: every hybrid query on it fails): "
            f"name it {example}"
        )
    return None


def _example(chunk_patterns: Sequence[str]) -> str:
    return chunk_patterns[0].replace("*", "<something>") if chunk_patterns else "a chunk index"


def reserved_indices(settings: Settings, also: Iterable[str] = ()) -> tuple[str, ...]:
    """The job ledger's index, ``also`` (e.g. the evaluation store's index, which the control API knows)
    and the patterns of the project's other index templates, without repeats."""
    _, others = index_templates(settings)
    return tuple(dict.fromkeys([settings.ledger.index, *also, *others]))


def check_target_index(settings: Settings, index: str, also_reserved: Iterable[str] = ()) -> None:
    """IngestRefusedError unless chunks may go into ``index`` (:func:`index_problem` over the rendered
    templates)."""
    chunk_patterns, _ = index_templates(settings)
    problem = index_problem(index, chunk_patterns, reserved_indices(settings, also_reserved))
    if problem is not None:
        raise IngestRefusedError(problem)


def check_strategy(strategy: str) -> None:
    """IngestRefusedError for a chunking strategy that does not exist, listing those that do."""
    if strategy not in STRATEGIES:
        raise IngestRefusedError(
            f"unknown chunking strategy {strategy!r}; known strategies: {', '.join(STRATEGIES)}"
        )


def check_sources(sources: Sequence[str]) -> None:
    """IngestRefusedError for a source that is neither a dataset id nor an existing file or folder."""
    unknown = unknown_sources(sources)
    if unknown:
        raise IngestRefusedError(
            f"no such dataset, file or folder: {', '.join(_shown(u) for u in unknown)} (dataset ids: "
            f"{', '.join(DATASET_FILES)}; or a path that exists)"
        )


def _shown(source: str, at_most: int = 200) -> str:
    """A source as an error message quotes it: a long one cut, with its length."""
    return source if len(source) <= at_most else f"{source[:at_most]}… ({len(source)} characters)"


def check_dataset_folders(sources: Sequence[str]) -> None:
    """IngestRefusedError for a dataset id whose folder is nowhere (the message says where it was looked
    for and how to get it)."""
    for dataset in (source for source in sources if source in DATASET_FILES):
        try:
            dataset_files(dataset)
        except DatasetsNotFoundError as exc:
            raise IngestRefusedError(str(exc)) from exc


def check_submission(
    settings: Settings,
    index: str,
    sources: Sequence[str],
    strategy: str,
    also_reserved: Iterable[str] = (),
) -> None:
    """Everything an ingest job is refused for at submission (the control API: 400, no job): the target
    index, the strategy, then the sources."""
    check_target_index(settings, index, also_reserved)
    check_strategy(strategy)
    check_sources(sources)
    check_dataset_folders(sources)
