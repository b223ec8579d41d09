"""Learned-sparse index and query mode: rank_features vs SEISMIC vs the two-phase processor, each with
bi-encoder and doc-only query encoding, as markdown (+ a plot of nDCG@10 against P95 latency).

    python -m benchmarks.sparse_index \\
        --split nfcorpus/dev=chunks-nfcorpus --split scifact/train=chunks-scifact \\
        --out model_artifacts/reports/sparse-index.md

    python -m benchmarks.sparse_index \\
        --unjudged nfcorpus/dev=chunks-medline-full --out model_artifacts/reports/sparse-index-medline.md

For each split it copies the stored chunks of INDEX (their ``sparse_terms`` as stored, never re-encoded)
into two variant indices rendered from the chunk template, ``sparsebench-rank_features-INDEX`` and
``sparsebench-seismic-INDEX`` (keys turned into token ids, which a ``sparse_vector`` needs), each
force-merged to one segment. It deploys a doc-only query model (tokenizer + the corpus IDF, inside
OpenSearch) per split, then runs the splade component alone over the split's queries for
{rank_features, seismic, rank_features + two-phase} x {bi-encoder, doc-only}, one run, the six
configurations interleaved per query. Reported: nDCG@10 and Recall@100 (documents, best chunk), overlap@100
with the exact chunk list of the same query encoding (rank_features without pruning is exact), and
latency P50/P95 (OpenSearch ``took`` and the client's round trip).

``--unjudged QUERY_SET=INDEX`` (repeatable) measures an index without relevance judgments, such as the
~85k-chunk MEDLINE sample: QUERY_SET (a train or dev split) only supplies the query texts, the same
variant indices, doc-only model and six configurations run, and the report has overlap@100 and latency
for it but no nDCG@10, Recall@100 or doc-only against bi-encoder nDCG@10, and no panel in the plot.
``--split`` and ``--unjudged`` combine; the default splits run only when neither is given. ``--limit``
applies to both.
"""
