"""Build the MEDLINE chunk index the search latency benchmark runs on beside chunks-nfcorpus: the first
--limit citations of the MEDLINE sample (files in sorted order, so the same citations every time),
chunked and encoded as `biohybrid ingest medline` does, which has no --limit.

    python -m benchmarks.medline_index --index chunks-medline --limit 10000

The whole sample (~50,000 citations) takes about 30-45 minutes to encode on 2 CPU cores (~30 chunks/s,
model_artifacts/reports/ingest-throughput-medline.md); 10,000 about 6-10 minutes. Re-running is safe:
unchanged chunks are skipped, so raising --limit only encodes the new citations. Then point the API
and the benchmark at NFCorpus + MEDLINE:

    biohybrid api stop
    BIOHYBRID__SEARCH__INDEX_PATTERN=chunks-nfcorpus,chunks-medline biohybrid api start
    python -m benchmarks.search_latency --key demo-search-key \\
        --index-pattern chunks-nfcorpus,chunks-medline --out model_artifacts/reports/search-latency.md
"""
