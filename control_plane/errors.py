"""One root for the project's exceptions, each carrying the HTTP status it maps to.

A caller can catch "anything this project raised" (``BiohybridError``), and the control API turns them
into answers in one place: a ``ClientError`` (the request broke a rule; the message names it) keeps its
4xx status and message; anything else is a 5xx, logged with an error id that the answer repeats. Each
class also keeps the built-in base its callers already catch (ValueError, RuntimeError, LookupError).
"""

from __future__ import annotations

from typing import Any


class BiohybridError(Exception):
    """Root of the project's exceptions; ``http_status`` is what the control API answers."""

    http_status: int = 500

    @property
    def details(self) -> Any:
        """Structured details for the error body (None: the message says it all)."""
        return None


class ClientError(BiohybridError):
    """The request broke a rule; the message names the rule and how to fix the request."""

    http_status = 400


class BadRequestError(ClientError, ValueError):
    """A request value or body that cannot be used."""


class CallerGoneError(ClientError):
    """The caller closed its connection before the work it asked for was done: the rest is not done.
    499 (the status nginx logs for it): nobody reads the answer, the logs and metrics do."""

    http_status = 499


class RateLimitedError(ClientError):
    """A caller past its limits; ``retry_after_s`` is when its next request can be served."""

    http_status = 429

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class UnavailableError(BiohybridError):
    """A service the request needs is down or overloaded; retrying later can succeed."""

    http_status = 503
