"""The query forms a client may send to a clinical search pipeline, read into one question and the
client's own filters (control_plane/clinical/pipeline.py rewrites them into the product's hybrid query).

Why so many forms: clients reach the pipelines through their own libraries, and each library writes
its own body (../shared/notes/rag-client-bodies.md has them as captured). What every form must carry is
the question as text; everything else that restricts (a bool's ``filter`` and ``must_not``, a hybrid's
``filter``, a knn clause's ``filter``) is kept as a filter and only ever added to. Read:

* ``match`` on one of the chunk's text fields (short or long form) — the documented form, LlamaIndex's
  keyword mode, LangChain's and Haystack's custom queries;
* ``multi_match`` with a ``query`` — Haystack's BM25 retriever (its fields are ignored: the product's
  field weights apply);
* ``neural`` / ``neural_sparse`` with a ``query_text`` — the explicit product query's own clauses;
* ``bool`` whose ``must`` holds exactly one of these (nested bools too), with ``filter`` / ``must_not``;
* ``hybrid`` of such clauses and client ``knn`` clauses (or ``neural`` / ``neural_sparse`` with a
  pre-encoded vector or tokens) — LlamaIndex's and LangChain's hybrid modes: the client's vector is
  replaced by the product's own query of the question (the client's embedding model is not the
  index's), its filters kept.

A field named the way LlamaIndex names its metadata (``metadata.<field>`` or ``metadata.<field>.keyword``)
is read as the chunk's own ``<field>``. Anything else is refused by name, with the form to send.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from control_plane.errors import ClientError
from control_plane.query.components import BM25_FIELD_BOOSTS
from control_plane.words.visible import has_visible_character

TEXT_FIELDS: Final = frozenset(BM25_FIELD_BOOSTS)  # the chunk's BM25 fields: a match on any is the question
SOURCE_FIELD: Final = "source"
METADATA_PREFIX: Final = "metadata."
FORM: Final = (
    'send {"match": {"text": "<question>"}} (or a multi_match with "query"), in a bool with "filter" '
    "to filter, or a hybrid of such a clause and your knn clause"
)
_BOOL_KEYS: Final = frozenset({"must", "filter", "must_not", "boost", "adjust_pure_negative", "_name"})
_HYBRID_KEYS: Final = frozenset({"queries", "filter", "pagination_depth", "boost", "_name"})
# Clauses that search by a client's own vector (or pre-encoded tokens): replaced inside a hybrid.
_VECTOR_KINDS: Final = frozenset({"knn", "neural", "neural_sparse"})


class PipelineQueryError(ClientError, ValueError):
    """The client's request is not a form the clinical pipelines read; the message says which form is."""


@dataclass(frozen=True)
class ClientQuery:
    """A client's question and its own filter clauses (field names as the chunk index has them)."""

    text: str
    filters: tuple[Mapping[str, Any], ...] = ()


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


def chunk_field(name: str) -> str:
    """``metadata.source.keyword`` (LlamaIndex's name for a metadata field) → ``source``; other names as
    they are."""
    if not name.startswith(METADATA_PREFIX):
        return name
    return name.removeprefix(METADATA_PREFIX).removesuffix(".keyword")


def chunk_fields(clause: Any) -> Any:
    """A filter clause with every ``metadata.*`` field name read as the chunk's own field (a field is
    a key beginning with ``metadata.``, or the value of a ``field`` key, at any depth)."""
    if isinstance(clause, list):
        return [chunk_fields(item) for item in clause]
    if not isinstance(clause, Mapping):
        return clause
    renamed: dict[str, Any] = {}
    for key, value in clause.items():
        if key == "field" and isinstance(value, str):
            renamed[key] = chunk_field(value)
        else:
            renamed[chunk_field(key)] = chunk_fields(value)
    return renamed


def _question(value: Any) -> str | None:
    """A question's text, or None when it is not a string with a character a reader would see (a question
    of zero-width characters asks nothing: control_plane/words/visible.py)."""
    return value if isinstance(value, str) and has_visible_character(value) else None


def _single(clause: Mapping[str, Any]) -> tuple[str, Any]:
    if len(clause) != 1:
        raise PipelineQueryError(f"a query clause has one kind, got {sorted(clause)}: {FORM}")
    kind, body = next(iter(clause.items()))
    return str(kind), body


def question_of(kind: str, body: Any) -> str | None:
    """The question of one text clause (match, multi_match, neural, neural_sparse), else None."""
    if not isinstance(body, Mapping):
        return None
    if kind == "multi_match":
        return _question(body.get("query"))
    if kind not in {"match", "neural", "neural_sparse"}:
        return None
    fields = [name for name in body if name not in {"boost", "_name"}]
    if len(fields) != 1:
        return None
    value = body[fields[0]]
    if kind == "match" and fields[0] not in TEXT_FIELDS:
        return None
    if kind == "match" and not isinstance(value, Mapping):
        return _question(value)
    if not isinstance(value, Mapping):
        return None
    return _question(value.get("query" if kind == "match" else "query_text"))


@dataclass
class _Reading:
    questions: list[str]
    filters: list[Mapping[str, Any]]


def _read(clause: Any, reading: _Reading, inside_hybrid: bool = False) -> None:
    if not isinstance(clause, Mapping):
        raise PipelineQueryError(f"a query clause is an object, got {type(clause).__name__}: {FORM}")
    kind, body = _single(clause)
    text = question_of(kind, body)
    if text is not None:
        reading.questions.append(text)
        return
    if kind == "bool" and isinstance(body, Mapping):
        _read_bool(body, reading, inside_hybrid)
    elif kind == "hybrid" and isinstance(body, Mapping) and not inside_hybrid:
        _read_hybrid(body, reading)
    elif kind in _VECTOR_KINDS and inside_hybrid:
        _read_vector(body, reading)
    elif kind in _VECTOR_KINDS:
        raise PipelineQueryError(
            f"a {kind} vector alone carries no question for the clinical pipelines to read: {FORM}"
        )
    else:
        raise PipelineQueryError(f"the clinical pipelines read a question, got {kind!r}: {FORM}")


def _filter_clauses(value: Any, where: str) -> list[Mapping[str, Any]]:
    """A filter's clauses; one that is not a query object is refused by name (dropping it would widen
    what the request may see). None is no filter."""
    clauses = [] if value is None else as_list(value)
    bad = [clause for clause in clauses if not isinstance(clause, Mapping)]
    if bad:
        raise PipelineQueryError(
            f"{where} holds {bad[0]!r}, not a query clause: send filter clauses as objects"
        )
    return clauses


def _read_bool(body: Mapping[str, Any], reading: _Reading, inside_hybrid: bool) -> None:
    extra = sorted(set(body) - _BOOL_KEYS)
    if extra:
        raise PipelineQueryError(
            f"the pipelines take a bool's must, filter and must_not, not {extra}: {FORM}"
        )
    musts = as_list(body.get("must", []))
    if len(musts) != 1:
        raise PipelineQueryError(f"a bool's must needs exactly one question clause, got {len(musts)}: {FORM}")
    _read(musts[0], reading, inside_hybrid)
    reading.filters.extend(_filter_clauses(body.get("filter", []), "a bool's filter"))
    excluded = _filter_clauses(body.get("must_not", []), "a bool's must_not")
    if excluded:
        reading.filters.append({"bool": {"must_not": excluded}})


def _read_hybrid(body: Mapping[str, Any], reading: _Reading) -> None:
    extra = sorted(set(body) - _HYBRID_KEYS)
    if extra:
        raise PipelineQueryError(f"the pipelines take a hybrid's queries and filter, not {extra}: {FORM}")
    for sub_query in as_list(body.get("queries", [])):
        _read(sub_query, reading, inside_hybrid=True)
    if body.get("filter") is not None:
        reading.filters.extend(_filter_clauses(body["filter"], "a hybrid's filter"))


def _read_vector(body: Any, reading: _Reading) -> None:
    """A client's knn clause: its vector is replaced (see the module docstring), its filter kept."""
    if not isinstance(body, Mapping) or len(body) != 1:
        raise PipelineQueryError(f"a knn clause names one vector field: {FORM}")
    search = next(iter(body.values()))
    if isinstance(search, Mapping) and search.get("filter") is not None:
        reading.filters.extend(_filter_clauses(search["filter"], "a knn clause's filter"))


def _unique(filters: list[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    seen: set[str] = set()
    for clause in filters:
        key = json.dumps(clause, sort_keys=True)
        if key not in seen:
            seen.add(key)
            yield clause


MAX_QUESTION_CHARS: Final = 2000
"""The longest question searched, through the pipelines as through /v1/search: beyond it a question costs
the rewrite, the encoders and BM25 seconds (and BM25's clause limit) without a better answer."""


def client_query(query: Any) -> ClientQuery:
    """Read the client's query (see the module docstring); anything else is refused with the form to
    send. The question clauses of one request must agree: two different questions are refused."""
    reading = _Reading(questions=[], filters=[])
    _read(query, reading)
    questions = sorted({text.strip() for text in reading.questions})
    if not questions:
        raise PipelineQueryError(f"the query holds no question as text: {FORM}")
    if len(questions) > 1:
        raise PipelineQueryError(f"the query asks {len(questions)} different questions {questions}: {FORM}")
    if len(questions[0]) > MAX_QUESTION_CHARS:
        raise PipelineQueryError(
            f"the question has {len(questions[0])} characters; at most {MAX_QUESTION_CHARS} are searched: "
            "shorten it"
        )
    filters = tuple(chunk_fields(f) for f in _unique(reading.filters))
    return ClientQuery(questions[0], filters)


def filters_sources(filters: tuple[Mapping[str, Any], ...] | list[Mapping[str, Any]]) -> bool:
    """Whether the client's own filters already choose sources (then no intent narrows them): a term or
    terms on ``source``, at the top or inside a bool's must or filter."""
    for clause in filters:
        for kind in ("term", "terms"):
            body = clause.get(kind)
            if isinstance(body, Mapping) and SOURCE_FIELD in body:
                return True
        inner = clause.get("bool")
        if isinstance(inner, Mapping):
            nested = [
                f for key in ("must", "filter") for f in as_list(inner.get(key, [])) if isinstance(f, Mapping)
            ]
            if filters_sources(nested):
                return True
    return False
