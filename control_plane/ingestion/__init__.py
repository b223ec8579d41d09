"""Ingestion: parse biomedical sources into normalised documents and chunk them for the index."""

from control_plane.ingestion.chunking import Chunk, chunk
from control_plane.ingestion.documents import Document, Section, Table
from control_plane.ingestion.errors import ParseError

__all__ = ["Chunk", "Document", "ParseError", "Section", "Table", "chunk"]
