"""The headers every answer of the control API carries so a browser cannot be turned against it: the
console may not be framed (clickjacking), loads only its own scripts and styles, and no answer is
sniffed into another media type (issue 73)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from flask import Response

SECURITY_HEADERS: Final[Mapping[str, str]] = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def with_security_headers(response: Response) -> Response:
    """``response`` with the headers above (a handler's own value of one is kept)."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
