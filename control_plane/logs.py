"""Structured logging: one JSON object per line (or plain text for people at a terminal)."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

_STANDARD_ATTRS = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


def record_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The structured fields a log call passed (``extra``), and those a filter added: what both forms
    print besides the message."""
    return {k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRS}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        entry.update(record_fields(record))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class TextFormatter(logging.Formatter):
    """``LEVEL message key=value ...``: a line a person reads, with the fields the JSON form carries (a
    skipped duplicate says which form was kept and why in either form); a value with spaces, quotes or
    ``=`` is quoted as JSON."""

    def format(self, record: logging.LogRecord) -> str:
        fields = (f"{k}={text_value(v)}" for k, v in record_fields(record).items())
        line = " ".join([record.levelname, record.getMessage(), *fields])
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def text_value(value: Any) -> str:
    """A field's value as a text log line shows it: a string bare when it reads as one token, else
    JSON-quoted; anything else as compact JSON."""
    if not isinstance(value, str):
        return json.dumps(value, default=str, separators=(",", ":"))
    return value if value and not any(ch.isspace() or ch in "\"'=" for ch in value) else json.dumps(value)


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
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    if not debug:
        handler.addFilter(ClientTracebackFilter())
    if quiet_clients:
        handler.addFilter(QuietClients())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    logging.getLogger("opensearch").setLevel(logging.WARNING)
    logging.getLogger("urllib3").setLevel(logging.WARNING)
