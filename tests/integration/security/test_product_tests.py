"""The product's own integration tests of the query, evaluation and snapshot paths, run as written on
the secured 2.19.1 node by the control plane's service account (this package's conftest gives them its
``client``, ``settings`` and ``applied``): a search whose caller left cancelled by its task, the chunk
template and analyzers, BM25, ``neural_sparse``, k-NN and ``hybrid`` through each pipeline, fusion as the
spec computes it, an index restored from a snapshot answering as before, the eval-runs store restored
from a snapshot, and evaluations stored, gauged, alerted and reported. Whatever the service account is
refused, or 2.19.1 does differently, fails here as it would for an operator."""

from integration.test_abandoned_searches import (
    slow_index,
    test_a_search_whose_caller_left_is_cancelled_in_opensearch,
    test_a_search_whose_caller_stays_runs_to_its_answer,
)
from integration.test_chunk_search import (
    test_biomedical_analyzer_stems_and_drops_stopwords,
    test_hybrid_search_through_each_pipeline,
    test_knn_top10_equals_brute_force_cosine,
    test_neural_sparse_with_raw_query_tokens_scores_dot_products,
    test_template_applies_to_new_chunk_indices,
    test_title_path_boost_ranks_title_hit_above_text_hit,
    test_unknown_field_is_rejected_with_its_name,
)
from integration.test_eval_runs_snapshot import store, test_stored_runs_read_back_from_a_restored_snapshot
from integration.test_evaluation import (
    stack,
    test_a_run_survives_queries_that_fail_for_real,
    test_cli_writes_trec_runs_results_and_report,
    test_runs_are_stored_gauged_and_compared_with_the_baseline,
)
from integration.test_fusion_pipelines import (
    spec_index,
    test_component_rankings_are_the_spec_ones,
    test_minmax_scores_are_the_weighted_mean_of_normalised_scores,
    test_rrf_spec_case_comes_out_of_opensearch,
    test_rrf_ties_break_by_bm25_rank,
    test_the_named_rrf_pipeline_fuses_with_the_configured_weights,
    test_the_rank_constant_reaches_the_node,
)
from integration.test_snapshots import test_a_restored_index_answers_as_before

__all__ = [
    "slow_index",
    "spec_index",
    "stack",
    "store",
    "test_a_restored_index_answers_as_before",
    "test_a_run_survives_queries_that_fail_for_real",
    "test_a_search_whose_caller_left_is_cancelled_in_opensearch",
    "test_a_search_whose_caller_stays_runs_to_its_answer",
    "test_biomedical_analyzer_stems_and_drops_stopwords",
    "test_cli_writes_trec_runs_results_and_report",
    "test_component_rankings_are_the_spec_ones",
    "test_hybrid_search_through_each_pipeline",
    "test_knn_top10_equals_brute_force_cosine",
    "test_minmax_scores_are_the_weighted_mean_of_normalised_scores",
    "test_neural_sparse_with_raw_query_tokens_scores_dot_products",
    "test_rrf_spec_case_comes_out_of_opensearch",
    "test_rrf_ties_break_by_bm25_rank",
    "test_runs_are_stored_gauged_and_compared_with_the_baseline",
    "test_stored_runs_read_back_from_a_restored_snapshot",
    "test_template_applies_to_new_chunk_indices",
    "test_the_named_rrf_pipeline_fuses_with_the_configured_weights",
    "test_the_rank_constant_reaches_the_node",
    "test_title_path_boost_ranks_title_hit_above_text_hit",
    "test_unknown_field_is_rejected_with_its_name",
]
