"""A recording proxy on 127.0.0.1 between moot and an OpenAI-compatible server.

It forwards every request as it is and keeps what the server answered: the `usage` of each completion,
its `finish_reason`, and the `response_format` type each request asked for with the status it got. The
real-model tests and `benchmarks/bench_local.py` compare these with what moot recorded, so that moot's
token spend is checked against the server's own count, not against itself.

    with llama_server() as upstream, UsageProxy(upstream) as proxy:
        ... api_base: proxy.base_url ...
        seen = proxy.reset()   # what the server said since the last reset
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from moot.testing.loopback import LoopbackServer, read_body


@dataclass
class Seen:
    """What the server answered, as the proxy saw it."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reasons: list[str] = field(default_factory=list)
    forms: list[tuple[str, int]] = field(default_factory=list)  # (response_format type or "off", HTTP status)


class UsageProxy(LoopbackServer):
    """Forwards every request to `upstream` (".../v1") and adds up the `usage` of each reply it relays."""

    def __init__(self, upstream: str, *, timeout: float = 1800.0) -> None:
        super().__init__()
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.seen = Seen()
        self._lock = threading.Lock()

    def serve(self, h: BaseHTTPRequestHandler) -> None:
        self.relay(h, read_body(h) if h.command == "POST" else b"")

    def reset(self) -> Seen:
        """What was seen since the last reset; counting starts again."""
        with self._lock:
            seen, self.seen = self.seen, Seen()
        return seen

    def relay(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            headers = {"content-type": "application/json"} if body else {}
            conn.request(h.command, h.path, body=body or None, headers=headers)
            r = conn.getresponse()
            status, kind, payload = r.status, r.getheader("content-type") or "application/json", r.read()
        finally:
            conn.close()
        if h.path.endswith("/chat/completions"):
            self._count(body, status, payload)
        h.send_response(status)
        h.send_header("content-type", kind)
        h.send_header("content-length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)

    def _count(self, body: bytes, status: int, payload: bytes) -> None:
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            request = {}
        form = str((request.get("response_format") or {}).get("type", "off"))
        with self._lock:
            self.seen.forms.append((form, status))
            if status != 200:
                return
            reply = json.loads(payload)
            usage = reply.get("usage") or {}
            self.seen.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.seen.completion_tokens += int(usage.get("completion_tokens") or 0)
            self.seen.finish_reasons += [str(c.get("finish_reason")) for c in reply.get("choices", [])]


def recorded_calls(home: Path) -> list[dict[str, Any]]:
    """Every call row moot recorded in the stores under `home` (its MOOT_HOME; a bench keeps its debates
    in stores of its own there), read straight from SQLite."""
    rows: list[dict[str, Any]] = []
    for db in sorted(p for p in home.rglob("*") if p.is_file() and _is_sqlite(p)):
        con = sqlite3.connect(db)
        try:
            con.row_factory = sqlite3.Row
            if con.execute("SELECT name FROM sqlite_master WHERE name = 'calls'").fetchone():
                rows += [dict(r) for r in con.execute("SELECT * FROM calls ORDER BY id")]
        finally:
            con.close()
    return rows


def _is_sqlite(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(16) == b"SQLite format 3\x00"
