"""Thin adapters over opensearch-py: the only place that talks to the cluster."""
