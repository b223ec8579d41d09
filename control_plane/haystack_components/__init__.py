"""Haystack 2 components over this stack (the `haystack` extra: `pip install '.[haystack]'`):
``BiohybridRetriever`` (hybrid search through the OpenSearch search pipelines, or through /v1/search when
the clinical boosts are wanted; OData $filter / $orderby / $top / $skip either way) and
``BiohybridRanker`` (the project's cross-encoder, blended with the incoming order as the rerank
connector does). Both return Haystack Documents whose meta carries the chunk's offsets and component
scores. Haystack's PostHog telemetry is switched off unless the environment says otherwise: this stack
runs where nothing outside is reachable."""

import os

os.environ.setdefault("HAYSTACK_TELEMETRY_ENABLED", "False")
