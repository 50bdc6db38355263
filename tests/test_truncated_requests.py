"""A client killed mid-request (`kill -9` of a batch) sends part of a body and goes away: the scripted
servers neither answer nor record it, so that a test counting what was sent counts only requests that
arrived (tests/test_batch_resume.py counted one such half request as a call of no item)."""

from __future__ import annotations

import json
import socket
import time
from urllib.parse import urlsplit

from moot.testing import FakeLLMServer


def test_a_request_cut_short_is_neither_answered_nor_recorded() -> None:
    with FakeLLMServer() as server:
        url = urlsplit(server.base_url)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n\r\n"
        with socket.create_connection((url.hostname or "127.0.0.1", url.port or 80)) as sock:
            sock.sendall(head.encode() + body[:5])
        time.sleep(0.5)
        assert server.requests == []
        # the same request whole, on a new connection, is recorded
        with socket.create_connection((url.hostname or "127.0.0.1", url.port or 80)) as sock:
            sock.sendall(head.encode() + body)
            assert sock.recv(64).startswith(b"HTTP/1.1 ")
        assert [r.model for r in server.requests] == ["m"]
