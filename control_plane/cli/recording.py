"""What a CLI job records: its ledger entry (the ``jobs`` index) and its lifecycle events (settings
``events``); the events still queued for an HTTP receiver are sent before the command exits."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from opensearchpy import OpenSearch

from control_plane.config.settings import Settings
from control_plane.events.emitter import EventEmitter
from control_plane.ledger.store import JobLedger


@dataclass(frozen=True)
class Recording:
    ledger: JobLedger
    events: EventEmitter


@contextmanager
def recording(settings: Settings, client: OpenSearch) -> Iterator[Recording]:
    events = EventEmitter(settings.events, "cli")
    try:
        yield Recording(JobLedger(client, settings, events=events), events)
    finally:
        events.flush(settings.events.timeout_s * 2)
        events.close()
