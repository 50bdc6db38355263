"""What the scripted servers of moot.testing share (`FakeLLMServer`, `AgentModelServer`, `UsageProxy`): a
threaded HTTP server on 127.0.0.1 at a free port, started and stopped with a `with` block, which hands each
GET and POST to its owner's `serve`. Each server says only how it answers a request."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


def read_body(h: BaseHTTPRequestHandler) -> bytes:
    """The request's body: as many bytes as its content-length says, none without one. A client that went
    away before sending all of it (killed mid-request) sent no request: `ConnectionAbortedError`, which
    the handler answers by closing the connection, so that the server neither answers nor records it."""
    length = int(h.headers.get("content-length") or 0)
    body = h.rfile.read(length) if length else b""
    if len(body) < length:
        raise ConnectionAbortedError(f"the client sent {len(body)} of {length} bytes and went away")
    return body


def json_body(raw: bytes) -> Any:
    """The body as JSON, or `{}` when it is empty or not JSON: a scripted server answers it as it would a
    request that said nothing."""
    try:
        return json.loads(raw or b"{}")
    except ValueError:
        return {}


class OwnerHandler(BaseHTTPRequestHandler):
    """Every GET and POST handed to the `LoopbackServer` that owns the HTTP server, over HTTP/1.1
    keep-alive, with no log line per request."""

    protocol_version = "HTTP/1.1"
    # headers and body go out as two writes: without TCP_NODELAY, Nagle's algorithm and the
    # client's delayed ACK add ~40 ms to every reply, which benchmarks would blame on the engine
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_POST(self) -> None:
        assert isinstance(self.server, LoopbackHTTPServer)
        try:
            self.server.owner.serve(self)
        except ConnectionAbortedError:
            self.close_connection = True  # a request cut short never arrived (`read_body`)

    def do_GET(self) -> None:
        assert isinstance(self.server, LoopbackHTTPServer)
        self.server.owner.serve(self)


class LoopbackHTTPServer(ThreadingHTTPServer):
    # socketserver's default listen backlog is 5: a wide panel's simultaneous connections would wait for a
    # SYN retry (a second) and show up as latency that is not the engine's
    request_queue_size = 128
    daemon_threads = True

    def __init__(self, owner: LoopbackServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), OwnerHandler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (killed, or its keep-alive connection reset) is how fault tests end
        their clients, not the server's error: no traceback for it. Anything else is printed as before."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class LoopbackServer:
    """The life of a scripted server: `start` binds a free port and serves in a daemon thread, `stop` (or
    the end of the `with` block) shuts it down; subclasses answer each request in `serve`."""

    def __init__(self) -> None:
        self._httpd: LoopbackHTTPServer | None = None

    def serve(self, h: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    @property
    def root_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def start(self) -> Self:
        self._httpd = LoopbackHTTPServer(self)
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
