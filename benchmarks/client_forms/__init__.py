"""Every form a client or RAG library sends a clinical pipeline, against the plain form: nDCG@10 of each
form (the bodies in ``forms.py``, and each library's own retriever in ``libraries.py``) through
``clinical-minmax`` and ``clinical-rrf`` on the splits named, then the latency of the plain form against
the README's explicit hybrid query (``pagination_depth`` 100, ``hybrid-minmax``), one interleaved run on
``--timed-split``'s questions (default clinical-natural/dev), with where the added time goes (the same
question through pipelines cut down to the rewrite alone, and to the rewrite and the routing window
without routing).

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.client_forms \\
        --split clinical-natural/test --split clinical/test \\
        --index chunks-clinical --out model_artifacts/reports/client-forms.md

Needs ``make run``'s stack, the clinical corpus in ``chunks-clinical`` (testsets/clinical/README.md) and
the ``clients`` extra (the libraries, at the versions it pins).
"""
