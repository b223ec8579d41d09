"""One ranking-quality table per test set from finished evaluation runs (issue 14's report): every
configuration's nDCG@10, Recall@10/100 and latency, with a paired test against hybrid-minmax.

    python -m benchmarks.ranking_report \\
        --run nfcorpus/test=bge-small:.local/evaluation/item6/<run id> \\
        --run nfcorpus/test=MiniLM:.local/evaluation/item6-minilm/<run id> \\
        --out model_artifacts/reports/ranking-quality/README.md

Each ``--run`` names a folder written by ``biohybrid evaluate`` (its runs/*.trec, results.json and
report.md with the command that made it) and a label for what differs between runs (the model it
ran with). Metrics are recomputed from the TREC runs against the test set's qrels, so runs made
separately (another model needs its own index) are compared on the same queries (their intersection)
with the same code: the baseline is the first label's hybrid-minmax run (``--against``: another
configuration, or ``same``, each configuration against itself under the first label).
"""
