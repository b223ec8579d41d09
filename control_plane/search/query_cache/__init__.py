"""The API's query cache (settings ``search.cache``): query encodings keyed by the served model's digest
and the query as the model sees it (on by default), and optionally whole answers keyed by the resolved
request, tenant and an index-state token read from OpenSearch. In memory, bounded, with a TTL."""
