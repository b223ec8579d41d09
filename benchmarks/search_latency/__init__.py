"""Search latency report: P50/P95/P99 of /v1/search and of the same hybrid request sent straight to
OpenSearch, per configuration, measured client-side on this machine, written as markdown with a plot.

    python -m benchmarks.search_latency --api http://127.0.0.1:8600 --key demo-search-key \\
        --queries 1000 --index-pattern 'chunks-*' --out model_artifacts/reports/search-latency.md

Paths (each request timed from sending it to having its whole answer, on keep-alive sessions):
  api          POST /v1/search: the whole control-plane search (query encoding by the API, one
               OpenSearch request with an inline pipeline, post-processing, JSON).
  direct       the exact request /v1/search would send (POST /v1/rewrite, not timed) sent straight to
               <index>/_search with its params. It carries the query vectors the API computed, so it
               EXCLUDES query encoding; the API's encode_ms is reported beside it.
  direct-text  a text-only hybrid query (neural / neural_sparse query_text) through the named pipelines
               hybrid-rrf, hybrid-minmax, hybrid-rrf-rerank, as `biohybrid query` sends it: ml-commons
               encodes the query inside OpenSearch. Run when the models answer (`biohybrid models status`).

Configurations are the evaluation's (control_plane/config/evaluation.yaml, with +rerank[@N] / +boosts);
they and the paths are interleaved per query, the order rotating, so machine noise hits all alike.
Queries: NFCorpus train + dev (never test) in a seeded hash order, cycled when fewer than --queries.

Needs the running stack: OpenSearch with the chunk indices, the inference service and the control API
(`make run`, or `BIOHYBRID_CONFIG=control_plane/config/local.yaml biohybrid api start`). The API must
search --index-pattern (checked): start it with BIOHYBRID__SEARCH__INDEX_PATTERN=<pattern> when that is
not its search.index_pattern. Writes the report, <out>.png (latency ECDFs) beside it and, with
--samples, every timed request as CSV. Each query costs (configurations x paths) requests plus one
untimed /v1/rewrite per configuration: 1,000 queries take tens of minutes on 2 cores.
"""
