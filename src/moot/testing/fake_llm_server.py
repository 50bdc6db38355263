"""A real HTTP server on 127.0.0.1 that speaks the OpenAI chat-completions protocol with scripted replies.

Replies are queued per model name; each may carry a delay, an HTTP status (429, 500, ...), headers
(Retry-After) and usage figures. A `responder` function can answer instead of a queue (benchmarks).
Judges reach it through their real SDK clients, so tests exercise the same code path as production.

    with FakeLLMServer() as server:
        server.script("judge-a", "overall_score: 4 ...", Reply(status=429, headers={"Retry-After": "0.1"}))
        ... api_base=server.base_url ...
"""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    delay: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    raw_body: str | None = None  # sent as-is instead of a well-formed completion


Responder = Callable[[str, dict[str, Any]], Reply]


@dataclass
class SeenRequest:
    path: str
    model: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float


class FakeLLMServer:
    def __init__(self) -> None:
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()
        self.requests: list[SeenRequest] = []
        self.responder: Responder | None = None
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        # extra routes: path suffix -> handler(server, path, body, headers) -> (status, headers, body)
        self.routes: dict[str, Callable[..., tuple[int, dict[str, str], bytes]]] = {}

    # scripting

    def script(self, model: str, *replies: str | Reply) -> None:
        with self._lock:
            for r in replies:
                self._queues[model].append(r if isinstance(r, Reply) else Reply(text=r))

    def next_reply(self, model: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            queue = self._queues.get(model)
            if queue:
                return queue.popleft()
        if self.responder is not None:
            return self.responder(model, body)
        return Reply(status=400, raw_body=json.dumps({"error": {"message": f"no scripted reply left for {model}"}}))

    def remaining(self, model: str) -> int:
        with self._lock:
            return len(self._queues.get(model, ()))

    def calls_for(self, model: str) -> list[SeenRequest]:
        with self._lock:
            return [r for r in self.requests if r.model == model]

    # lifecycle

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def start(self) -> FakeLLMServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                server._handle(self, body)

            def do_GET(self) -> None:
                server._handle(self, {})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # serving

    def _send(self, h: BaseHTTPRequestHandler, status: int, headers: dict[str, str], payload: bytes) -> None:
        try:
            h.send_response(status)
            h.send_header("content-type", headers.pop("content-type", "application/json"))
            for k, v in headers.items():
                h.send_header(k, v)
            h.send_header("content-length", str(len(payload)))
            h.end_headers()
            h.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def _handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        path = h.path.split("?")[0]
        headers = {k.lower(): v for k, v in h.headers.items()}
        for suffix, route in self.routes.items():
            if suffix in path:
                status, out_headers, payload = route(self, path, body, headers)
                self._send(h, status, out_headers, payload)
                return
        if not path.endswith("/chat/completions"):
            if path.endswith("/models"):
                self._send(h, 200, {}, json.dumps({"object": "list", "data": []}).encode())
                return
            self._send(h, 404, {}, b'{"error": {"message": "not found"}}')
            return
        model = str(body.get("model", ""))
        with self._lock:
            self.requests.append(SeenRequest(path, model, body, headers, time.monotonic()))
        reply = self.next_reply(model, body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.raw_body is not None or reply.status != 200:
            text = reply.raw_body or json.dumps({"error": {"message": f"scripted error {reply.status}"}})
            self._send(h, reply.status, dict(reply.headers), text.encode())
            return
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        usage = {
            "prompt_tokens": reply.input_tokens if reply.input_tokens is not None else max(1, prompt_chars // 4),
            "completion_tokens": reply.output_tokens
            if reply.output_tokens is not None
            else max(1, len(reply.text) // 4),
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]  # type: ignore[operator]
        completion = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": "stop"}],
            "usage": usage,
        }
        self._send(h, 200, dict(reply.headers), json.dumps(completion).encode())
