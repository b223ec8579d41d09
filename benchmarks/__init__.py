"""Benchmark scripts: each writes a report; none is a test."""
