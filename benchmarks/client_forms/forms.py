"""The search bodies clients and RAG libraries send a clinical pipeline, one builder per form, each
around a question (../shared/notes/rag-client-bodies.md has the bodies as captured). The plain form is
the documented one; every other must rank as it does (tests/integration/api/test_clinical_pipelines.py,
and the benchmark's report)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

Form = Callable[[str], dict[str, Any]]
# A client's own query vector is replaced by the product's query: any 384 floats stand for one.
CLIENT_VECTOR: Final = [0.01] * 384
NARROW_SOURCE: Final = ["doc_id", "chunk_id", "section", "section_label", "text", "is_table"]
PLAIN: Final = "plain match"
# Every source a clinical chunk index holds: a filter on all of them keeps every chunk, so a filtered form
# must rank as the plain form does (a filter that drops a source would change the answer, not the form).
ALL_SOURCES: Final = ["ctgov", "pmc", "medline"]
# The documented filter keeps two of the three sources: its answer is measured against the plain
# form's with the other source's hits taken out (what a client filtering by source expects), not against
# the unfiltered plain form, which would measure the filter instead of the routing.
TRIALS_AND_ARTICLES: Final = ("ctgov", "pmc")


def _plain(question: str) -> dict[str, Any]:
    return {"query": {"match": {"text": question}}}


FORMS: Final[dict[str, Form]] = {
    PLAIN: _plain,
    "bool filter (terms, every source)": lambda q: {
        "query": {"bool": {"must": [{"match": {"text": q}}], "filter": [{"terms": {"source": ALL_SOURCES}}]}}
    },
    "bool filter (terms, ctgov and pmc)": lambda q: {
        "query": {
            "bool": {
                "must": [{"match": {"text": q}}],
                "filter": [{"terms": {"source": list(TRIALS_AND_ARTICLES)}}],
            }
        }
    },
    "bool filter (nested bool, must_not)": lambda q: {
        "query": {
            "bool": {
                "must": {"match": {"text": {"query": q}}},
                "filter": {"bool": {"should": [{"term": {"source": source}} for source in ALL_SOURCES]}},
                "must_not": [{"term": {"source": "nfcorpus"}}],
            }
        }
    },
    "narrow _source list": lambda q: {"_source": NARROW_SOURCE, **_plain(q)},
    "_source false": lambda q: {"_source": False, **_plain(q)},
    "track_total_hits": lambda q: {"track_total_hits": True, **_plain(q)},
    "Haystack BM25 multi_match": lambda q: {
        "query": {"bool": {"must": [{"multi_match": {"query": q, "fuzziness": 0, "type": "most_fields"}}]}}
    },
    "LlamaIndex text_search body": lambda q: {"query": {"bool": {"must": {"match": {"text": {"query": q}}}}}},
    "LlamaIndex text_search body + metadata filter": lambda q: {
        "query": {
            "bool": {
                "must": {"match": {"text": {"query": q}}},
                "filter": [{"bool": {"must": [{"terms": {"metadata.source.keyword": ALL_SOURCES}}]}}],
            }
        }
    },
    "LlamaIndex hybrid body": lambda q: {
        "query": {
            "hybrid": {
                "queries": [
                    {"bool": {"must": {"match": {"text": {"query": q}}}}},
                    {"knn": {"embedding": {"vector": CLIENT_VECTOR, "k": 5}}},
                ]
            }
        }
    },
    "LangChain hybrid_search body": lambda q: {
        "_source": {"excludes": ["vector_field"]},
        "query": {
            "hybrid": {
                "queries": [
                    {"match": {"text": {"query": q}}},
                    {"knn": {"vector_field": {"vector": CLIENT_VECTOR, "k": 5}}},
                ]
            }
        },
    },
}
# Forms that narrow the sources: each is measured against the plain form's answer kept to those sources.
SOURCES_KEPT: Final[dict[str, tuple[str, ...]]] = {"bool filter (terms, ctgov and pmc)": TRIALS_AND_ARTICLES}
