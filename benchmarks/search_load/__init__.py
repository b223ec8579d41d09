"""Throughput under concurrency: 1, 4 and 16 closed-loop clients (locust, headless, bounded in time, loopback
only) sending hybrid-rrf searches through the control API and straight to the search pipeline with plain
text. Reports QPS and latency percentiles per path and client count, and the highest QPS whose P95 stays
under the spec's 500 ms.

    pip install -e '.[bench]'   # locust
    python -m benchmarks.search_load --key demo-search-key --index chunks-nfcorpus \
        --out model_artifacts/reports/search-load.md

Needs the running stack (OpenSearch with the index, models registered, the inference service and the
control API searching the same index). Locust runs on the same cores as the stack: on a 2-core machine
it takes part of the capacity it measures.
"""
