"""The opensearch-py client factory (every package that talks to the cluster gets its client here) and the
resource API for templates and pipelines."""
