"""Resilience of model calls: a per-model circuit breaker and the GPU-bound failure policy (pure parts)."""
