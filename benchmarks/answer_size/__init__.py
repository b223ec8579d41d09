"""Answer size for direct clients: the README's plain-text hybrid query, sent straight to a search pipeline
with the whole _source and with the stored vectors left out (``query.components.VECTOR_FIELDS``), interleaved
per query. Reports response bytes and client-side latency for both, so the lean answer's saving is
measured, not assumed.

    python -m benchmarks.answer_size --test-set nfcorpus/dev --index chunks-nfcorpus \
        --queries 100 --out model_artifacts/reports/answer-size.md

Needs the node with the index and the models registered (the pipelines encode the text).
"""
