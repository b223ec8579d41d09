"""The control plane's search: intents and boosts, query types, the request, and result shaping."""
