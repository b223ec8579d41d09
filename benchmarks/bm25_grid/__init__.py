"""BM25's k1 and b, its field boosts and each component's candidate depth, chosen on non-test splits.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.bm25_grid \\
        --split nfcorpus/dev=chunks-nfcorpus --split scifact/train=chunks-scifact \\
        --out model_artifacts/reports/bm25-grid/dev.md

A similarity change needs a re-index in OpenSearch, so BM25 is scored by the exact reference
(control_plane/evaluation/exact.py: Lucene's BM25 over a snapshot of the index, its norms and term
statistics) with each (k1, b); the report first checks that the reference reproduces OpenSearch's own
BM25 lists at the index's setting. SPLADE and dense lists are OpenSearch's own (registered query models,
as for any client), searched once at the deepest candidate depth and cut for the shallower ones. Every
point is scored alone (bm25) and inside the product's fusions (the configured min-max weights, RRF
k = 60), documents ranked by their best chunk. A setting is chosen by the mean hybrid-minmax nDCG@10
over the splits, and only when it loses on neither split (what wins on NFCorpus alone is suspect).
"""
