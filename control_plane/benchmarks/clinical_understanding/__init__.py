"""Clinical understanding on natural questions (issue 34's report): nDCG@10 per intent, per question
form and overall, boosts off and on, under weighted (min-max) and RRF fusion, on both paths a client
has — /v1/search's service (boosts off / on) and OpenSearch directly (the README's explicit query
through ``hybrid-<fusion>`` / a plain question through ``clinical-<fusion>``) — and intent detection's
precision and recall per intent against each question's labelled intents.

    BIOHYBRID_CONFIG=control_plane/config/local.yaml \\
        python -m control_plane.benchmarks.clinical_understanding \\
        --split clinical-natural/dev --split clinical/dev \\
        --split clinical-natural/test --split clinical/test \\
        --out model_artifacts/reports/clinical-understanding.md

Needs ``make run``'s stack and the clinical corpus in ``chunks-clinical`` (testsets/clinical/README.md).
Settings are fixed on the dev splits; the targets are judged on ``clinical-natural/test``.
"""
