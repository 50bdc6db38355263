"""moot.testing's scripted servers when a client dies mid-request, as the fault tests' clients do: no
traceback in the test's output for a connection the client reset, the next request answered; a fault of the
server's own still printed."""

from __future__ import annotations

import socket
import struct
import time

import openai
import pytest

from moot.testing import FakeLLMServer, Reply


def _reset_mid_request(server: FakeLLMServer) -> None:
    host, port = server.root_url.removeprefix("http://").split(":")
    client = socket.create_connection((host, int(port)))
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends a reset
    client.send(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
    client.close()
    time.sleep(0.3)


def _ask(server: FakeLLMServer) -> str:
    client = openai.OpenAI(base_url=server.base_url, api_key="local", max_retries=0)
    reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    return str(reply.choices[0].message.content)


def test_a_client_reset_mid_request_prints_nothing_and_the_next_is_answered(capfd: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer() as server:
        server.responder = lambda model, body: Reply(text="answered")
        _reset_mid_request(server)
        assert _ask(server) == "answered"
    assert "Traceback" not in capfd.readouterr().err


def test_a_fault_of_the_server_s_own_is_still_printed(capfd: pytest.CaptureFixture[str]) -> None:
    def broken(model: str, body: object) -> Reply:
        raise ValueError("the responder broke")

    with FakeLLMServer() as server:
        server.responder = broken
        with pytest.raises(openai.APIConnectionError):
            _ask(server)
    err = capfd.readouterr().err
    assert "Traceback" in err and "ValueError: the responder broke" in err
