"""Building the MEDLINE chunk index: the configured encoders and the ingest pipeline, `biohybrid ingest
medline` with a limit."""

from __future__ import annotations

from pathlib import Path

from control_plane.cluster.client import make_client
from control_plane.config.settings import Settings
from control_plane.ingestion.bulk import DeadLetterFile
from control_plane.ingestion.run import IngestOptions, IngestSummary, ingest
from control_plane.ingestion.setup import python_encoder


def build_index(settings: Settings, options: IngestOptions, dead_letter: Path) -> IngestSummary:
    """Ingest the MEDLINE sample as ``options`` say; what cannot be indexed goes to ``dead_letter``."""
    encoder, counter = python_encoder(settings)
    return ingest(
        make_client(settings.opensearch), ["medline"], options, encoder, DeadLetterFile(dead_letter), counter
    )
