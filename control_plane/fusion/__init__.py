"""Fusion maths as small pure functions: the reference the OpenSearch pipelines are checked against."""
