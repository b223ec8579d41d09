"""What reranking adds to a search, per rerank depth, on this machine: the inference service's
`/v1/rerank/<model>` call (the one OpenSearch's rerank processor makes) timed at each depth, next to the
first-stage search it follows.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.rerank_latency \\
        --test-set nfcorpus/dev --index chunks-nfcorpus --queries 40 \\
        --out model_artifacts/reports/ranking-quality/rerank-latency.md

Per query: the hybrid-minmax pipeline's fused top ``max(depths)`` chunks for the plain-text query
(timed: the search without rerank), then one rerank call per depth with the first ``depth`` texts, the
depths in rotating order so machine noise hits all alike. The call carries the same blend and budget
the rerank connector sends (models.rerank_model_weight; no budget, so nothing is shed). P50/P95 per
depth, client-side, one request at a time; a warm-up query first, not counted.
"""
