"""Clinical relevance: does clinical routing help on the clinical collection (testsets/clinical)?

    export BIOHYBRID_CONFIG=control_plane/config/local.yaml
    python -m benchmarks.clinical_relevance --test-set clinical/dev --index chunks-clinical \\
        --grid --out model_artifacts/reports/clinical-relevance/dev.md

Per query and fusion method, one /v1/search-equivalent search (SearchService, chunk granularity) with
boosts off gives the fused chunks; the detected intents give the boosts; the routed sections of the
most topical records are fetched once. Every routing setting is then the pure re-ordering of
control_plane/clinical/section_routing.py over those lists, so a grid costs no further search. The chosen (or
``--fixed``) setting is also run end to end through SearchService with boosts on, and the report says
whether that agrees with the offline figure.

Metrics at chunk level: nDCG@10 (grades 2 and 1), P@5 (any judged chunk: the right record), and the
reciprocal rank of the first grade-2 chunk (the right section). Paired randomization tests against
boosts off; per intent (a two-intent question counts in both and in "multi-intent"), per form.
"""
