"""Control plane for the OpenSearch-native biomedical hybrid retrieval stack."""
