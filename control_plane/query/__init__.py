"""Query bodies for the three retrieval components."""
