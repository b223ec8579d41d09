"""Pure retrieval measures: metrics per query and over a run, paired significance, ranking stability."""
