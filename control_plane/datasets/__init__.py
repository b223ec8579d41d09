"""The datasets: where each is found (``locate``) and how an evaluation corpus is fetched from its public
source with pinned sha256 (``fetch``, ``sources.json``)."""
