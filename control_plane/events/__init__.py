"""Lifecycle CloudEvents (the cloudevents SDK): what happened to a search, an ingest stage or a job, sent
to a configurable sink (HTTP receiver or JSON-lines file); off by default (settings ``events``)."""
