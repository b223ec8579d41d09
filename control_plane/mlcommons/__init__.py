"""ml-commons: connectors to the inference service, remote models, and their deployment."""
