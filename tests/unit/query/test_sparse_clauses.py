"""The splade clause against both field types: rank_features (plain neural_sparse) and SEISMIC
(sparse_vector: token-id keys and method_parameters). Expected JSON written by hand."""

from control_plane.query.components import (
    SparseAnn,
    sparse_text_clause,
    sparse_tokens_clause,
    token_id_weights,
)


def test_rank_features_clause_has_no_method_parameters() -> None:
    assert sparse_tokens_clause({"statin": 1.5, "##s": 0.25}) == {
        "neural_sparse": {"sparse_terms": {"query_tokens": {"statin": 1.5, "##s": 0.25}}}
    }
    assert sparse_text_clause("statin", "tok") == {
        "neural_sparse": {"sparse_terms": {"query_text": "statin", "model_id": "tok"}}
    }


def test_seismic_clause_carries_top_n_heap_factor_and_k() -> None:
    ann = SparseAnn(top_n=10, heap_factor=1.0, k=100)
    assert sparse_tokens_clause({"2424": 1.5}, ann) == {
        "neural_sparse": {
            "sparse_terms": {
                "query_tokens": {"2424": 1.5},
                "method_parameters": {"top_n": 10, "heap_factor": 1.0, "k": 100},
            }
        }
    }
    assert sparse_text_clause("statin", "tok", SparseAnn(top_n=5, heap_factor=0.8, k=50)) == {
        "neural_sparse": {
            "sparse_terms": {
                "query_text": "statin",
                "model_id": "tok",
                "method_parameters": {"top_n": 5, "heap_factor": 0.8, "k": 50},
            }
        }
    }


def test_token_ids_replace_word_pieces_and_unknown_pieces_are_dropped() -> None:
    vocabulary = {"statin": 2424, "##s": 2015, "[CLS]": 101}
    assert token_id_weights({"statin": 1.5, "##s": 0.25, "unseen": 0.7}, vocabulary) == {
        "2424": 1.5,
        "2015": 0.25,
    }
