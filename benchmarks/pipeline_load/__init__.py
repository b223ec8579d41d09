"""Searches under concurrent load, the way a RAG service sends them: ``clients`` threads each send their
next question the moment the last one answered (a closed loop) for a fixed time, through each path
(the explicit hybrid query through ``hybrid-minmax``, a plain question through ``clinical-minmax`` and its
``-rerank`` form, ``/v1/search``). Every failure is kept with its status and message, never retried: a
search that fails is the finding. The report gives, per path and client count, questions answered per
second, P50/P95 latency and the failures.

    python -m benchmarks.pipeline_load --index chunks-demo --clients 1,4,10,20,50 --seconds 20 \\
        --out benchmarks/pipeline_load/reports/demo.md
"""
