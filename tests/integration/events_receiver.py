"""A real CloudEvents receiver for the tests: an http.server on a free loopback port, in a thread, that
keeps every POST (headers and body) and answers 204; the events are parsed back with the cloudevents SDK."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cloudevents.core.base import BaseCloudEvent
from cloudevents.core.bindings.http import HTTPMessage, from_http_event


@dataclass
class Receiver:
    url: str
    posts: list[tuple[dict[str, str], bytes]] = field(default_factory=list)

    def events(self) -> list[BaseCloudEvent]:
        """Every received POST as the SDK parses it (structured or binary mode, by its headers)."""
        return [
            from_http_event(HTTPMessage(headers=headers, body=body)) for headers, body in list(self.posts)
        ]

    def wait_for(self, count: int, timeout_s: float = 10.0) -> None:
        deadline = time.monotonic() + timeout_s
        while len(self.posts) < count and time.monotonic() < deadline:
            time.sleep(0.02)


@contextmanager
def running_receiver(delay_s: float = 0.0, status: int = 204) -> Iterator[Receiver]:
    """The receiver; ``delay_s`` makes it slow (it waits before answering), ``status`` what it answers."""
    received: list[tuple[dict[str, str], bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(delay_s)
            received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(status)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, name="events-receiver", daemon=True)
    thread.start()
    try:
        yield Receiver(f"http://127.0.0.1:{server.server_address[1]}/events", received)
    finally:
        server.shutdown()
        server.server_close()
