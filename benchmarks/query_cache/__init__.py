"""Query cache benchmark: /v1/search latency with and without the API's query cache, in one run, under
a realistic repeat rate: a seeded Zipf draw over NFCorpus train + dev queries (never test).

    python -m benchmarks.query_cache --key demo-search-key --index chunks-nfcorpus \\
        --requests 1500 --out model_artifacts/reports/query-cache.md

Starts one control API per mode (ports picked free, each its own process, stopped at the end), all on the
same settings except ``search.cache``:
  off       no cache (encoding and response caches disabled)
  encoding  the default: query encodings cached, answers not
  on        encodings and whole answers cached (with the index-state read on every search)
and sends the same drawn sequence to each, the modes interleaved per request (order rotating), one
client, keep-alive, so machine noise hits all modes alike and each mode's cache sees the same repeats.
Every cache starts cold; the report gives P50/P95/P99, hit rates (overall and on repeated queries) and
what the index-state read costs. Needs OpenSearch with the index, the inference service (`make run` or
`make node-up`), and the settings file the APIs should use (--config, default $BIOHYBRID_CONFIG, else
control_plane/config/local.yaml).
"""
