"""Fusion stability across paraphrases: how much RRF and min-max rankings change with the wording of
one information need, beside the single components, as markdown with one plot.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.fusion_stability \\
        --test-set scifact/train --configurations hybrid-rrf,hybrid-minmax,bm25,splade,dense \\
        --out model_artifacts/reports/fusion-stability.md

Pairs come from the test set's qrels (control_plane.measures.stability: identical relevant sets,
different words, at most --max-pairs-per-set per set). Only the queries in pairs are searched, each
once per configuration, through the evaluation's runner and SearchService retriever (the path of
`biohybrid evaluate`: document level, the evaluation settings' depth, candidate depth, budgets and
dataset -> index map). Nothing is stored in eval-runs: this is a measurement on a query subset.
Per configuration it reports top-10 Jaccard, RBO@10, the within-pair nDCG@10 variance and mean
|ΔnDCG@10|, by wording (near-duplicate edits vs different wordings), and a paired randomization test
of RRF against min-max on the per-pair values, with pairs and with relevance sets as the units.
Measurement only, on a train split: nothing is tuned on it.
"""
