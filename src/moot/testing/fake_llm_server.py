"""A real HTTP server on 127.0.0.1 that speaks three vendors' wire protocols with scripted replies:
OpenAI chat completions (`{base_url}/chat/completions`), Anthropic messages (`{root_url}/v1/messages`) and
Gemini generateContent (`{root_url}/v1beta/models/MODEL:generateContent`), each with its own usage and
error shapes; and Gemini's context caches (`POST {root_url}/v1beta/cachedContents`): a generateContent that
names one (`cachedContent`) is counted with the cache's text and reports it as `cachedContentTokenCount`,
and one naming a cache the server does not hold (`drop_cache`: it expired) is answered 404 NOT_FOUND.

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
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from typing import Any

from moot.testing.loopback import LoopbackServer, json_body, read_body


@dataclass
class Reply:
    text: str = ""
    delay: float = 0.0
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_tokens: int = 0
    cache_write_tokens: int = 0  # Anthropic's cache_creation_input_tokens (part of the input, as the vendor bills it)
    reasoning_tokens: int = 0
    raw_body: str | None = None  # sent as-is instead of a well-formed completion
    finish_reason: str = "stop"  # "length": the server ended the reply at its output bound


Responder = Callable[[str, dict[str, Any]], Reply]


@dataclass
class SeenRequest:
    path: str
    model: str
    body: dict[str, Any]
    headers: dict[str, str]
    at: float
    wire: str = "openai"  # "openai" | "anthropic" | "gemini"


class FakeLLMServer(LoopbackServer):
    """`slots`: how many model requests it works on at once, the others waiting their turn inside the server,
    as a local model server does (llama-cpp-python's has one); None, every request at once."""

    def __init__(self, slots: int | None = None) -> None:
        super().__init__()
        self._slots = threading.Semaphore(slots) if slots else None
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._lock = threading.Lock()
        self.requests: list[SeenRequest] = []
        self.responder: Responder | None = None
        # structured forms this server refuses, as llama-cpp-python's server refuses `json_schema`: a 500 whose
        # body names `response_format.type` (the request is still recorded; no scripted reply is used)
        self.refuse_forms: set[str] = set()
        # extra routes: path suffix -> handler(server, path, body, headers) -> (status, headers, body)
        self.routes: dict[str, Callable[..., tuple[int, dict[str, str], bytes]]] = {}
        self.cached_contents: dict[str, dict[str, Any]] = {}  # Gemini context caches: name -> the create body

    def drop_cache(self, name: str) -> None:
        """Forget a Gemini context cache, as the vendor does when it expires."""
        with self._lock:
            self.cached_contents.pop(name, None)

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

    # serving (the life of the server: `LoopbackServer`)

    def serve(self, h: BaseHTTPRequestHandler) -> None:
        if h.command != "POST":
            self._handle(h, {})
            return
        self._handle(h, json_body(read_body(h)))

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
        if path.endswith("/cachedContents") and h.command == "POST":
            self._send(h, 200, {}, json.dumps(self._create_cache(body)).encode())
            return
        wire, model = _wire_of(path, body)
        if wire is None:
            if path.endswith("/models"):
                self._send(h, 200, {}, json.dumps({"object": "list", "data": []}).encode())
                return
            self._send(h, 404, {}, b'{"error": {"message": "not found"}}')
            return
        with self._lock:
            self.requests.append(SeenRequest(path, model, body, headers, time.monotonic(), wire))
            number = len(self.requests)
            cache = body.get("cachedContent") if wire == "gemini" else None
            missing = cache is not None and cache not in self.cached_contents
        if missing:
            self._send(h, 404, {}, _gemini_error(404, "CachedContent not found (or permission denied)").encode())
            return
        form = (body.get("response_format") or {}).get("type") if wire == "openai" else None
        if form in self.refuse_forms:
            self._send(h, 500, {}, _form_refusal(str(form)).encode())
            return
        if self._slots is None:
            self._answer(h, wire, model, body, number)
            return
        with self._slots:  # queued behind the requests the server is working on
            self._answer(h, wire, model, body, number)

    def _answer(self, h: BaseHTTPRequestHandler, wire: str, model: str, body: dict[str, Any], number: int) -> None:
        reply = self.next_reply(model, body)
        if reply.delay:
            time.sleep(reply.delay)
        if reply.raw_body is not None or reply.status != 200:
            text = reply.raw_body or _error_body(wire, reply.status)
            self._send(h, reply.status, dict(reply.headers), text.encode())
            return
        cached_text = self._cached_text(body) if wire == "gemini" else ""
        if cached_text and not reply.cached_tokens:  # Gemini counts the cache's text as prompt, and as cached
            reply = replace(reply, cached_tokens=len(cached_text) // 4)
        prompt = cached_text + _prompt_text(wire, body)
        tokens_in = reply.input_tokens if reply.input_tokens is not None else max(1, len(prompt) // 4)
        tokens_out = reply.output_tokens if reply.output_tokens is not None else max(1, len(reply.text) // 4)
        answer = WIRE_REPLIES[wire](model, reply, tokens_in, tokens_out, number)
        self._send(h, 200, dict(reply.headers), json.dumps(answer).encode())

    def _create_cache(self, body: dict[str, Any]) -> dict[str, Any]:
        """`caches.create`: a CachedContent as Gemini returns it, kept until `drop_cache`."""
        with self._lock:
            name = f"cachedContents/fake-{len(self.cached_contents) + 1}"
            self.cached_contents[name] = body
        now = datetime.now(UTC)
        ttl = float(str(body.get("ttl", "3600s")).rstrip("s") or 3600)
        stamp = now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return {
            "name": name,
            "model": body.get("model", ""),
            "displayName": body.get("displayName", ""),
            "usageMetadata": {"totalTokenCount": max(1, len(self._cached_text({"cachedContent": name})) // 4)},
            "createTime": stamp,
            "updateTime": stamp,
            "expireTime": (now + timedelta(seconds=ttl)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        }

    def _cached_text(self, body: dict[str, Any]) -> str:
        with self._lock:
            held = self.cached_contents.get(str(body.get("cachedContent", "")), {})
        return "".join(_texts(held.get("systemInstruction", {})) + _texts(held.get("contents", [])))


def _form_refusal(form: str) -> str:
    """llama-cpp-python's answer to a `response_format` type it does not take (its validation error, as a 500)."""
    message = (
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        f"'msg': \"Input should be 'text' or 'json_object'\", 'input': '{form}'}}"
    )
    return json.dumps({"error": {"message": message, "type": "internal_server_error", "param": None, "code": None}})


# the three wire protocols: which one a request speaks, and a well-formed reply in each


def _wire_of(path: str, body: dict[str, Any]) -> tuple[str | None, str]:
    if path.endswith("/chat/completions"):
        return "openai", str(body.get("model", ""))
    if path.endswith("/messages"):
        return "anthropic", str(body.get("model", ""))
    if ":generateContent" in path:
        return "gemini", path.rsplit("/", 1)[-1].split(":", 1)[0]
    return None, ""


def _texts(node: Any) -> list[str]:
    """Every text in a request body's message structure, whatever the wire's nesting."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [t for item in node for t in _texts(item)]
    if isinstance(node, dict):
        out: list[str] = []
        for key in ("text", "content", "parts"):
            if key in node:
                out += _texts(node[key])
        return out
    return []


def _prompt_text(wire: str, body: dict[str, Any]) -> str:
    if wire == "openai":
        return "".join(_texts(body.get("messages", [])))
    if wire == "anthropic":
        return "".join(_texts(body.get("system", "")) + _texts(body.get("messages", [])))
    return "".join(_texts(body.get("systemInstruction", {})) + _texts(body.get("contents", [])))


_ERROR_NAMES = {429: "rate_limit_error", 529: "overloaded_error", 401: "authentication_error"}
_GEMINI_STATUS = {
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    400: "INVALID_ARGUMENT",
    404: "NOT_FOUND",
}


def _error_body(wire: str, status: int) -> str:
    message = f"scripted error {status}"
    if wire == "anthropic":
        kind = _ERROR_NAMES.get(status, "api_error" if status >= 500 else "invalid_request_error")
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}})
    if wire == "gemini":
        return _gemini_error(status, message)
    return json.dumps({"error": {"message": message}})


def _gemini_error(status: int, message: str) -> str:
    return json.dumps({"error": {"code": status, "message": message, "status": _GEMINI_STATUS.get(status, "UNKNOWN")}})


def _openai_reply(model: str, reply: Reply, tokens_in: int, tokens_out: int, number: int) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": reply.text}, "finish_reason": reply.finish_reason}
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
            "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        },
    }


def _anthropic_reply(model: str, reply: Reply, tokens_in: int, tokens_out: int, number: int) -> dict[str, Any]:
    # Anthropic counts cache reads apart from input_tokens (which are the uncached ones)
    cached = min(reply.cached_tokens, tokens_in)
    written = min(reply.cache_write_tokens, tokens_in - cached)
    return {
        "id": f"msg_{number:08d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": tokens_in - cached - written,
            "output_tokens": tokens_out,
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": written,
        },
    }


def _gemini_reply(model: str, reply: Reply, tokens_in: int, tokens_out: int, number: int) -> dict[str, Any]:
    # Gemini counts thinking apart from candidates; both are billed as output
    thoughts = min(reply.reasoning_tokens, tokens_out)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": reply.text}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": tokens_in,
            "candidatesTokenCount": tokens_out - thoughts,
            "thoughtsTokenCount": thoughts,
            "cachedContentTokenCount": reply.cached_tokens,
            "totalTokenCount": tokens_in + tokens_out,
        },
        "modelVersion": model,
        "responseId": f"resp-{number}",
    }


WIRE_REPLIES: dict[str, Callable[[str, Reply, int, int, int], dict[str, Any]]] = {
    "openai": _openai_reply,
    "anthropic": _anthropic_reply,
    "gemini": _gemini_reply,
}
