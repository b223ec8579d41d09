"""What the console's compare endpoint accepts: a question and two configurations, each a search pipeline
queried as a client queries it, or a /v1/search with its options. Checked before anything is searched,
each problem named with the configuration (a or b) it is in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from control_plane.api.errors import validation_problems
from control_plane.errors import BadRequestError
from control_plane.search.spec import SearchSpec

# An index name or pattern (comma-separated, wildcards), as OpenSearch accepts them.
INDEX_PATTERN = r"^[a-z0-9*][a-z0-9_\-*,]*$"
# What the console sends itself: the question and the page size of both columns.
SET_BY_CONSOLE = frozenset({"query", "size"})
MAX_SIZE = 50


class PipelineConfiguration(BaseModel):
    """POST <index>/_search?search_pipeline=<pipeline> with the plain-text body a client sends."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["pipeline"]
    pipeline: str = Field(min_length=1, max_length=200)
    index: str | None = Field(None, pattern=INDEX_PATTERN, description="default: search.index_pattern")


class SearchConfiguration(BaseModel):
    """/v1/search: ``options`` are the SearchSpec fields (fusion_method, boosts, rerank, components...)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["search"]
    options: dict[str, Any] = Field(default_factory=dict)
    index: str | None = Field(None, pattern=INDEX_PATTERN, description="default: search.index_pattern")


Configuration = Annotated[PipelineConfiguration | SearchConfiguration, Field(discriminator="kind")]


class CompareRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=2000)
    size: int = Field(10, ge=1, le=MAX_SIZE, description="hits per column")
    a: Configuration
    b: Configuration


def search_spec(configuration: SearchConfiguration, question: str, size: int, label: str) -> SearchSpec:
    """The SearchSpec of a search configuration: its options, the question and the size. A column is a
    chunk list (the diff compares chunks), so granularity is chunk."""
    reserved = sorted(SET_BY_CONSOLE & set(configuration.options))
    if reserved:
        raise BadRequestError(
            f"configuration {label}: options must not set {reserved}: the console sends the question and "
            "the size of both columns itself"
        )
    try:
        spec = SearchSpec.model_validate({**configuration.options, "query": question, "size": size})
    except ValidationError as exc:
        problems = "; ".join(f"options.{p['field']}: {p['problem']}" for p in validation_problems(exc))
        raise BadRequestError(f"configuration {label}: {problems}") from None
    if spec.granularity != "chunk":
        raise BadRequestError(
            f"configuration {label}: granularity {spec.granularity!r}: the console compares chunk lists, "
            "leave granularity out or set it to 'chunk'"
        )
    return spec


def check_pipeline(configuration: PipelineConfiguration, known: Sequence[str], label: str) -> None:
    """An unknown pipeline is refused with the ones the project installs."""
    if configuration.pipeline not in known:
        raise BadRequestError(
            f"configuration {label}: unknown pipeline {configuration.pipeline!r}; "
            f"known: {', '.join(known) or 'none (run `biohybrid apply`)'}"
        )
