"""An ``http`` example as the documentation writes it, in HTTP message form: a request line, header
lines, a blank line, then the body (a JSON body may also follow the request line at once, as in Dev
Tools). A relative target (``POST chunks-demo/_search``, as in OpenSearch Dashboards' Dev Tools) goes to
OpenSearch; an absolute one (``POST http://localhost:8600/v1/search``) to that address."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from control_plane.errors import BiohybridError

METHODS: Final = frozenset({"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"})
_HEADER: Final = re.compile(r"^(?P<name>[A-Za-z0-9-]+):\s*(?P<value>.*)$")


class HttpBlockError(BiohybridError, ValueError):
    """The block is not a request the tests can send; the message says what is wrong."""


@dataclass(frozen=True)
class HttpRequest:
    method: str
    target: str
    headers: tuple[tuple[str, str], ...]
    body: str

    def url(self, opensearch: str) -> str:
        """The absolute URL: the target itself, or the target under the OpenSearch base URL."""
        if self.target.startswith(("http://", "https://")):
            return self.target
        return f"{opensearch.rstrip('/')}/{self.target.lstrip('/')}"

    def header_map(self) -> dict[str, str]:
        """The headers, with ``Content-Type: application/json`` added to a body that names none (what
        Dev Tools sends, and what OpenSearch demands of a body)."""
        headers = dict(self.headers)
        if self.body and not any(name.lower() == "content-type" for name in headers):
            headers["Content-Type"] = "application/json"
        return headers


def parse_http(code: str) -> HttpRequest:
    """The request an ``http`` block describes."""
    lines = code.strip("\n").splitlines()
    if not lines or not lines[0].strip():
        raise HttpBlockError("an http block starts with a request line: METHOD TARGET")
    words = lines[0].split()
    if len(words) != 2 or words[0] not in METHODS:
        raise HttpBlockError(
            f"request line {lines[0]!r}: expected METHOD TARGET, METHOD one of {', '.join(sorted(METHODS))}"
        )
    headers: list[tuple[str, str]] = []
    rest = 1
    while rest < len(lines) and lines[rest].strip() and not lines[rest].lstrip().startswith(("{", "[")):
        match = _HEADER.match(lines[rest])
        if match is None:
            raise HttpBlockError(
                f"line {rest + 1} {lines[rest]!r}: a header is 'Name: value'; "
                "leave a blank line before the body"
            )
        headers.append((match["name"], match["value"].strip()))
        rest += 1
    body = "\n".join(lines[rest:]).strip()
    return HttpRequest(words[0], words[1], tuple(headers), body)
