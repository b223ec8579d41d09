"""Per-query-type fusion weights, earned on dev splits or left off: for each query type
(control_plane/clinical/query_types.py) the best min-max weights among the grid, against the global
weights (settings fusion.weights) on the same queries.

    export BIOHYBRID_CONFIG=control_plane/config/local.yaml
    python -m benchmarks.query_type_weights --split nfcorpus/dev=chunks-nfcorpus \\
        --split clinical/dev=chunks-clinical --out model_artifacts/reports/query-type-weights/dev.md

Collection and fusion are benchmarks/fusion_grid/'s (three component searches per query,
fusion in-process by the checked formulas). Collections judged at chunk level (clinical) are ranked by
chunk, the others by document. A type's weights are worth switching on only if they beat the global
weights on every split that has queries of that type (mean gain, paired test reported).
"""
