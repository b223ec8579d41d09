"""Test sets by string id (nfcorpus/dev, scifact/train, clinical/test, <folder>:<split>): typed queries and
qrels loaded lazily, stratified subsets and the fixed slices the integration tests index."""
