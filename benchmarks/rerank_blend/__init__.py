"""Rerank depth and blend weight chosen on a dev split: a grid of (depth, model weight) over the fused
candidates of one pipeline, as a markdown report with one plot.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.rerank_blend \\
        --test-set nfcorpus/dev --index chunks-nfcorpus --out model_artifacts/reports/rerank-blend-dev.md

Per query: the pipeline's fused top ``--candidates`` chunks for the plain-text query (ml-commons encodes
it, as for any direct client), and the served cross-encoder's scores of the first max(depths) of them
from the inference service (`/v1/rerank/<model>`, the endpoint OpenSearch's rerank processor calls).
Every grid point is then the pure blend (control_plane/fusion/rerank_blend.py) of those scores with the
fused order, ranked at document level (best chunk per document), so the whole grid costs one search and
one rerank call per query. Weight 0 is the fused ranking itself: the baseline every other point is
tested against (paired randomization test on per-query nDCG@10).

``--fixed DEPTH:WEIGHT`` evaluates only the baseline and that point (for the one report on a test split,
with settings chosen on dev).
"""
