"""Structured logging: one JSON object per line (or plain text for people at a terminal)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

_STANDARD_ATTRS = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update({k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRS})
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


# Client libraries that log each failed attempt with its traceback (opensearch-py per connection error).
_CLIENT_LOGGERS = ("opensearch", "urllib3")


class ClientTracebackFilter(logging.Filter):
    """A client library's warning keeps its line and gains the error's one-line text; its traceback (a
    refused connection is an expected failure, said once more by the command's own error line) shows
    only with --debug."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.name.split(".")[0] in _CLIENT_LOGGERS:
            error = record.exc_info[1]
            record.error = f"{type(error).__name__}: {error}" if error else ""
            record.exc_info = None
            record.exc_text = None
        return True


class QuietClients(logging.Filter):
    """Drops a client library's warnings (a command that says its own error line once needs no per-attempt
    retry warnings before it); on the handler, so the loggers themselves keep their levels."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or record.name.split(".")[0] not in _CLIENT_LOGGERS


def configure_logging(
    level: str = "INFO", fmt: str = "json", *, debug: bool = False, quiet_clients: bool = False
) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter("%(levelname)s %(message)s"))
    if not debug:
        handler.addFilter(ClientTracebackFilter())
    if quiet_clients:
        handler.addFilter(QuietClients())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("opensearch").setLevel(logging.WARNING)
    logging.getLogger("urllib3").setLevel(logging.WARNING)
