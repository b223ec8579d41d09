"""bge-small-en-v1.5 as published in Maven Central (int8, token states out): pooled and normalised here,
the query instruction on queries only, and each text's vector independent of its batch-mates."""

from __future__ import annotations

import numpy as np

from control_plane.models import DenseEncoder

PASSAGES = [
    "Low-dose aspirin increases the risk of gastrointestinal bleeding in older adults.",
    "Serious adverse events were reported in 12 patients (8%) receiving the study drug. " * 6,
    "The football match was postponed because of heavy snow.",
]


def test_vectors_are_384_d_unit_norm_cls_pooled(bge_small: DenseEncoder) -> None:
    vectors = bge_small.encode(PASSAGES)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_texts_vector_does_not_depend_on_its_batch(bge_small: DenseEncoder) -> None:
    together = bge_small.encode(PASSAGES)
    for i, text in enumerate(PASSAGES):
        np.testing.assert_array_equal(bge_small.encode([text])[0], together[i])


def test_queries_get_the_instruction_and_documents_do_not(bge_small: DenseEncoder) -> None:
    query = "does aspirin cause stomach bleeding"
    [as_query] = bge_small.encode_queries([query])
    [by_hand] = bge_small.encode([bge_small.query_prefix + query])
    [as_document] = bge_small.encode([query])
    np.testing.assert_array_equal(as_query, by_hand)
    assert float(as_query @ as_document) < 0.99  # the instruction changes the vector


def test_the_relevant_passage_ranks_first_for_a_paraphrased_query(bge_small: DenseEncoder) -> None:
    [query] = bge_small.encode_queries(["harms of taking aspirin every day for the elderly"])
    scores = bge_small.encode(PASSAGES) @ query
    assert int(np.argmax(scores)) == 0 and scores[0] > scores[2] + 0.2
