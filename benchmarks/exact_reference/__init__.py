"""Exact-search reference: what OpenSearch's approximations cost, per configuration, as markdown.

    python -m benchmarks.exact_reference --index chunks-nfcorpus \\
        --test-set nfcorpus/test --out model_artifacts/reports/exact-reference.md

For each query it runs OpenSearch's own bm25, splade, dense, hybrid-minmax and hybrid-rrf (plain
requests; hybrids with the repository's pipeline inline, sub-queries bm25, splade, dense,
``pagination_depth`` and k-NN ``k`` = the candidate depth) and the exact reference over a snapshot of
the same index (control_plane.evaluation.exact), from the same query encodings. It reports k-NN
Recall@100 of the index against exhaustive search, score parity per component, nDCG@10 and Recall@100
per configuration (OpenSearch vs exact), and where the differences come from: exact search at the
index's stored sparse precision, and the hybrid fusion replayed in Python over OpenSearch's own
component lists.
"""
