"""Search latency at growing index sizes, read as cost growth: the search_latency table (every client
path, P50/P95/P99) measured on copies of the first N chunks of one large index, plus other indices as
extra points, with a growth table and plot.

    python -m benchmarks.search_scale --key demo-search-key \\
        --source-index chunks-medline-full --sizes 10000,18000,40000,all \\
        --extra-index chunks-nfcorpus,chunks-scifact \\
        --out model_artifacts/reports/search-scale.md

The large index is built once, e.g. by `python -m benchmarks.ingest_throughput medline
--keep-index chunks-medline-full ...`. Each smaller step is `_reindex`ed from it (``max_docs``): the stored
vectors travel, nothing is encoded again, and a step that already holds its N chunks is reused. Each
step gets a control API of its own (ports --port, --port+1, ...) searching only that step's index (the
api path needs it: /v1/search reads the configured index pattern). Then one run: every query goes to
every step, and within a step through every configuration and path (search_latency's checks and
timing), all orders rotating per query, so a load swing reaches every size alike. Each step's full
report (with its ECDF) is written into a folder beside the summary. Step copies are deleted at the end
unless --keep-steps.
"""
