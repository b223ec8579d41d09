"""Fusion settings chosen on non-test splits: a grid of min-max weights and RRF rank constants, scored on
each given split, as a markdown report with one plot per split.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.fusion_grid \\
        --split nfcorpus/dev=chunks-nfcorpus --split scifact/train=chunks-scifact \\
        --out model_artifacts/reports/fusion-grid/dev.md

``--limit scifact/train=300`` keeps a split to its first judged queries (the claims held out of model
training, for a model trained on the rest: model_artifacts/reports/fusion-grid/bge-small-bio-dev.md).

Per query: each component's top ``--depth`` chunks with their raw scores (the pipelines' pagination
depth), searched in OpenSearch with the registered query models (ml-commons encodes the text, as for any
direct client). Every grid point is then fused in-process by the formulas the pipelines are checked
against (control_plane/evaluation/exact.py: neural-search's min-max with its 0.001 floor, RRF), and
collapsed to documents by their best chunk, so the grid costs three searches per query. A setting is
chosen by its mean nDCG@10 over the splits (a setting that wins on one corpus only is suspect); the
current settings are the baseline each point is tested against (paired randomization test).
"""
