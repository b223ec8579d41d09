"""The clinical search pipelines against the paths they stand beside: relevance of (a) the README's
explicit hybrid query through ``hybrid-<fusion>`` as it was sent before the clinical pipelines (no
``pagination_depth``) and as the README sends it now (``pagination_depth`` 100), (b) a plain question
through ``clinical-<fusion>``, (c) /v1/search's service with boosts on (its own weights, the section
fetch on); then the latency of (b) against ``hybrid-minmax`` with the explicit query (query_text), one
interleaved run, and the throughput of both at 1 and 4 clients.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.clinical_pipelines \\
        --split clinical/dev --split clinical/test --index chunks-clinical \\
        --out model_artifacts/reports/clinical-pipelines.md

Needs ``make run``'s stack and the clinical corpus in ``chunks-clinical`` (testsets/clinical/README.md).
Latency and throughput use the first split's questions (a non-test split); every request leaves the
stored vectors out of ``_source`` as the README's examples do.
"""
