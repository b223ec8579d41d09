#!/usr/bin/env bash
# Issue 70's measurements on make run's stack, one after the other on this machine.
set -euo pipefail
cd "$(dirname "$0")/../../.."
export BIOHYBRID_CONFIG=$PWD/control_plane/config/local.yaml
B=.venv/bin
R=model_artifacts/reports/pipeline-load
mkdir -p $R
ready() { for _ in $(seq 180); do curl -sf localhost:8501/ready >/dev/null && return 0; sleep 1; done; return 1; }
$B/biohybrid api stop || true; $B/biohybrid api start
# 1. before: the service with main's limits (24 request threads, share 18, queue 32)
$B/biohybrid service stop || true
$B/python -m control_plane.inference --port 8501 --http-threads 24 --queue-size 32 --log-format text > .local/before-service.log 2>&1 &
before_pid=$!
ready
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 20,50 --seconds 15 \
  --paths hybrid-minmax,clinical-minmax --title "Before: the inference service with main's limits (24 request threads, 18 for OpenSearch, queue 32)" \
  --out $R/before-main-limits.md
kill $before_pid; wait $before_pid || true
# 2. after: the service as it now starts
$B/biohybrid service start
ready
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 1,4,10,20,50 --seconds 15 \
  --title "After: every path at 1 to 50 concurrent clients" --out $R/concurrency-demo.md
# 3. /v1/search with key limits that admit the clients
$B/biohybrid api stop || true
BIOHYBRID__API__KEY_LIMITS__CONCURRENT=64 BIOHYBRID__API__KEY_LIMITS__REQUESTS_PER_S=1000 BIOHYBRID__API__KEY_LIMITS__BURST=2000 $B/biohybrid api start
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 20,50 --seconds 15 --paths api \
  --title "/v1/search with the key's limits raised to admit 64 at once (BIOHYBRID__API__KEY_LIMITS__CONCURRENT=64)" \
  --out $R/api-raised-key-limits.md
$B/biohybrid api stop; $B/biohybrid api start
# 4. searches during an ingest
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 4 --seconds 8 --paths hybrid-minmax,clinical-minmax \
  --during-ingest pmc,ctgov --rounds 3 --warmup 10 --title "Searches during an ingest, at nice 0 and at the default 10" \
  --out $R/during-ingest.md
# 5. the profile of a clinical question
$B/python -m benchmarks.pipeline_steps --split clinical-natural/dev --index chunks-demo --questions 60 --window 100 \
  --out $R/clinical-steps-demo.md
# 6. after the rerank fallback landed (7fbefeb): the -rerank form on CPU
$B/biohybrid service stop; $B/biohybrid service start; ready
$B/biohybrid models register; $B/biohybrid apply
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 1,20,50 --seconds 15 \
  --paths clinical-minmax,clinical-minmax-rerank \
  --title "The -rerank form on CPU with the rerank fallback landed (budget 1,500 ms; rerank_requires_gpu false)" \
  --out $R/rerank-fallback-demo.md
# 7. the 3-node cluster (make cluster-up), the demo sources ingested there
BIOHYBRID_CONFIG=$PWD/control_plane/config/local-cluster.yaml $B/biohybrid models register
BIOHYBRID_CONFIG=$PWD/control_plane/config/local-cluster.yaml $B/biohybrid apply
BIOHYBRID_CONFIG=$PWD/control_plane/config/local-cluster.yaml $B/biohybrid ingest pmc ctgov --index chunks-demo --no-progress
BIOHYBRID_CONFIG=$PWD/control_plane/config/local-cluster.yaml $B/python -m benchmarks.pipeline_load --index chunks-demo \
  --clients 1,20,50 --seconds 15 --paths hybrid-minmax,clinical-minmax,clinical-minmax-rerank \
  --title "The 3-node cluster (make cluster-up: 3 nodes on this one 2-core VM, lucene HNSW, its own inference service on 8502), searches sent to node-1" \
  --out $R/cluster-concurrency.md
# 8. the CPU rerank's cost per depth, one call at a time
$B/python -m benchmarks.rerank_latency --test-set clinical-natural/dev --index chunks-demo --queries 20 \
  --depths 10,25,50,100 --out $R/rerank-cpu-cost.md
# 9. (2026-12-02, later session) rerank requiring a GPU, the default since 1245c19: models registered with it
$B/biohybrid models register; $B/biohybrid apply
$B/python -m benchmarks.pipeline_load --index chunks-demo --clients 1,4,20 --seconds 15 \
  --paths clinical-minmax,clinical-minmax-rerank \
  --title "The -rerank form with rerank requiring a GPU (the default since 1245c19) on this CPU-only VM" \
  --out $R/rerank-gpu-default-demo.md
# 10. the profile from request to answer, on both indices (chunks-clinical: testsets/clinical/README.md)
for idx in demo clinical; do
  $B/python -m benchmarks.pipeline_steps --split clinical-natural/dev --index chunks-$idx --questions 60 \
    --window 100 --out $R/clinical-profile-$idx.md
done
echo done
