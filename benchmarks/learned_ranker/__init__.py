"""A learned ranker over the fused candidates (issue 14, option c): LightGBM LambdaRank trained on
NFCorpus train judgments, compared on dev with the fused order and the cross-encoder blend.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.learned_ranker \\
        --train nfcorpus/train=chunks-nfcorpus --dev nfcorpus/dev=chunks-nfcorpus \\
        --check scifact/train=chunks-scifact --out model_artifacts/reports/learned-ranker/dev.md

Per query: the pipeline's fused top ``--depth`` chunks for the plain-text query (ml-commons encodes it,
as for any client) and the served cross-encoder's raw scores of them (`/v1/rerank/<model>`, the
endpoint OpenSearch's rerank processor calls); both are cached under .cache/learned-ranker by index
state, model and query set, so a re-run trains and scores without searching again. Features are what a
model behind the rerank connector can compute (control_plane/models/ranker_features.py): position,
lexical matches within the list, and optionally the cross-encoder's score. Two rankers are trained —
``lexical`` (no cross-encoder: no model inference at query time) and ``full`` — on the train queries,
with early stopping on a fifth of them held out by query id hash; dev and the check split are never
seen in training. The check split is another corpus (the ranker never trained on it; note that the
cross-encoder ce-minilm did train on scifact/train, so its columns there are optimistic).
"""
