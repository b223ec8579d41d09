"""Fair use under abuse (issue 50 item 6): one key bursts oversized questions (2,000 characters, from
several threads, honouring Retry-After) at a running control API while another key's ordinary searches
run; reported: the other key's P50/P95 against idle runs taking turns with the busy ones, whether any of its
searches lost a component, and what the abusive key got (200 / 429). Loopback only, bounded in count.

    python -m benchmarks.fair_use --api http://127.0.0.1:8600 \\
        --key demo-search-key --abusive-key demo-admin-key --out model_artifacts/reports/fair-use.md
"""
