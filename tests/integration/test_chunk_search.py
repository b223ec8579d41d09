"""The chunk template indexes precomputed SPLADE terms and vectors, and each component searches."""

import numpy as np
import pytest
from integration.chunks import chunk, ids, index_chunks
from opensearchpy import OpenSearch
from opensearchpy.exceptions import RequestError

from control_plane.config.settings import Settings
from control_plane.query.components import (
    bm25_clause,
    dense_vector_clause,
    hybrid_query,
    sparse_tokens_clause,
)

pytestmark = pytest.mark.integration


def test_template_applies_to_new_chunk_indices(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    mapping = client.indices.get_mapping(index=chunk_index)[chunk_index]["mappings"]
    assert mapping["dynamic"] == "strict"
    assert mapping["properties"]["embedding"]["method"]["engine"] == "lucene"
    assert mapping["properties"]["embedding"]["dimension"] == settings.index.knn.dimension
    assert mapping["properties"]["sparse_terms"]["type"] == "rank_features"


def test_unknown_field_is_rejected_with_its_name(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    doc = chunk("bad", "x", dimension=settings.index.knn.dimension, vector=[1.0], sparse={"x": 1.0})
    doc["unexpected_field"] = 1
    with pytest.raises(RequestError, match="unexpected_field"):
        client.index(index=chunk_index, body=doc)


def test_title_path_boost_ranks_title_hit_above_text_hit(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    dim = settings.index.knn.dimension
    index_chunks(
        client,
        chunk_index,
        [
            chunk(
                "in-text",
                "metformin lowers glucose in adults",
                title_path="diabetes trial › results",
                dimension=dim,
                vector=[1.0],
                sparse={"a": 1.0},
            ),
            chunk(
                "in-title",
                "glucose lowering in adults was seen",
                title_path="metformin trial › results",
                dimension=dim,
                vector=[1.0],
                sparse={"a": 1.0},
            ),
        ],
    )
    response = client.search(index=chunk_index, body={"query": bm25_clause("metformin")})
    assert ids(response) == ["in-title", "in-text"]


def test_biomedical_analyzer_stems_and_drops_stopwords(client: OpenSearch, chunk_index: str) -> None:
    tokens = client.indices.analyze(
        index=chunk_index,
        body={"analyzer": "biomedical_english", "text": "The patients' Tumours are treated with insulin"},
    )
    assert [t["token"] for t in tokens["tokens"]] == ["patient", "tumor", "treat", "insulin"]


SPELLINGS = (
    ("Anaemia", "anemia"),
    ("tumours", "tumors"),
    ("haemoglobin", "hemoglobin"),
    ("oedema", "edema"),
    ("paediatric", "pediatric"),
    ("randomised", "randomized"),
    ("randomisation", "randomization"),
    ("Leukaemia's", "leukemia"),
)


def _terms(client: OpenSearch, index: str, text: str) -> list[str]:
    answer = client.indices.analyze(index=index, body={"field": "text", "text": text})
    return [t["token"] for t in answer["tokens"]]


@pytest.mark.parametrize(("british", "american"), SPELLINGS)
def test_british_and_american_spellings_are_one_term(
    client: OpenSearch, chunk_index: str, british: str, american: str
) -> None:
    assert _terms(client, chunk_index, british) == _terms(client, chunk_index, american)


def test_a_question_in_one_spelling_finds_chunks_in_either(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    dim = settings.index.knn.dimension
    texts = {
        "uk": "severe anaemia and oedema in paediatric tumours",
        "us": "severe anemia and edema in pediatric tumors",
    }
    index_chunks(
        client,
        chunk_index,
        [chunk(key, text, dimension=dim, vector=[1.0], sparse={"a": 1.0}) for key, text in texts.items()],
    )
    for question in ("anaemia in paediatric tumour", "anemia in pediatric tumor"):
        response = client.search(index=chunk_index, body={"query": bm25_clause(question)})
        assert sorted(ids(response)) == ["uk", "us"], question
        scores = [hit["_score"] for hit in response["hits"]["hits"]]
        assert scores[0] == pytest.approx(scores[1]), question  # the same terms in both


def test_neural_sparse_with_raw_query_tokens_scores_dot_products(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    dim = settings.index.knn.dimension
    docs = {
        "a": {"aspirin": 2.0, "bleeding": 1.0},
        "b": {"aspirin": 0.5},
        "c": {"bleeding": 3.0},
        "d": {"statin": 4.0},
    }
    index_chunks(
        client, chunk_index, [chunk(d, d, dimension=dim, vector=[1.0], sparse=w) for d, w in docs.items()]
    )
    query = {"aspirin": 1.0, "bleeding": 0.5}
    response = client.search(index=chunk_index, body={"query": sparse_tokens_clause(query)})
    expected = {d: sum(query.get(t, 0.0) * w for t, w in terms.items()) for d, terms in docs.items()}
    # a: 2.0*1 + 1.0*0.5 = 2.5 ; c: 3.0*0.5 = 1.5 ; b: 0.5*1 = 0.5 ; d: no shared term
    assert ids(response) == ["a", "c", "b"]
    for hit in response["hits"]["hits"]:
        # rank_features keep about 9 bits of mantissa
        assert hit["_score"] == pytest.approx(expected[hit["_source"]["doc_id"]], rel=1e-2)


def test_knn_top10_equals_brute_force_cosine(
    client: OpenSearch, chunk_index: str, settings: Settings
) -> None:
    dim, n = settings.index.knn.dimension, 300
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(n, dim))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index_chunks(
        client,
        chunk_index,
        [
            chunk(f"v{i}", f"vector {i}", dimension=dim, vector=vectors[i].tolist(), sparse={"v": 1.0})
            for i in range(n)
        ],
    )
    for q in rng.normal(size=(5, dim)):
        q /= np.linalg.norm(q)
        exact = [f"v{i}" for i in np.argsort(-(vectors @ q), kind="stable")[:10]]
        body = {"size": 10, "query": dense_vector_clause(q.tolist(), k=10, ef_search=n)}
        assert ids(client.search(index=chunk_index, body=body)) == exact


@pytest.mark.parametrize("pipeline", ["hybrid-minmax", "hybrid-rrf"])
def test_hybrid_search_through_each_pipeline(
    client: OpenSearch, chunk_index: str, settings: Settings, pipeline: str
) -> None:
    dim = settings.index.knn.dimension
    index_chunks(
        client,
        chunk_index,
        [
            chunk(
                "lex",
                "warfarin dosing in atrial fibrillation",
                dimension=dim,
                vector=[0.0, 1.0],
                sparse={"x": 0.1},
            ),
            chunk(
                "sparse",
                "anticoagulant therapy",
                dimension=dim,
                vector=[0.0, 0.0, 1.0],
                sparse={"warfarin": 2.0},
            ),
            chunk("dense", "vitamin k antagonists", dimension=dim, vector=[1.0, 0.05], sparse={"x": 0.1}),
            chunk("none", "unrelated text about knees", dimension=dim, vector=[-1.0], sparse={"y": 1.0}),
        ],
    )
    clauses = {
        "bm25": bm25_clause("warfarin"),
        "splade": sparse_tokens_clause({"warfarin": 1.0}),
        "dense": dense_vector_clause(np.eye(dim)[0].tolist(), k=1),
    }
    response = client.search(
        index=chunk_index,
        params={"search_pipeline": pipeline},
        body={"size": 10, "query": hybrid_query(clauses)},
    )
    assert set(ids(response)) == {"lex", "sparse", "dense"}
    scores = [hit["_score"] for hit in response["hits"]["hits"]]
    assert scores == sorted(scores, reverse=True)
