"""The HTTP surfaces beyond loopback (issue 27 §4): `moot view` counts a host as loopback only when it is
exactly `localhost` or a loopback IP literal, and `moot mcp --http` off loopback needs a bearer token and
answers only to its allowed hosts. Every request here goes to 127.0.0.1; servers bind 127.0.0.1 or 0.0.0.0."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from moot.cli.app import main
from moot.view.security import is_loopback

from .store_processes import env_for, http_server
from .view_store import serving

INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
)


def post(port: int, headers: dict[str, str]) -> int:
    """An MCP initialize request to the server on 127.0.0.1 with these headers (Host included): its status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        conn.request("POST", "/mcp", body=INITIALIZE, headers={**base, **headers})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_loopback_is_localhost_or_a_loopback_ip_literal() -> None:
    assert all(map(is_loopback, ["localhost", "127.0.0.1", "127.9.8.7", "::1", "[::1]"]))
    assert not any(map(is_loopback, ["127.0.0.1.attacker.example", "127.attacker.example", "localhost.example", "0.0.0.0", "10.0.0.1"]))  # fmt: skip


def test_view_refuses_a_host_that_only_starts_like_loopback(tmp_path: Path) -> None:
    with serving(tmp_path / "home") as url:
        port = int(url.rsplit(":", 1)[1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for host, expected in (("127.0.0.1.attacker.example", 403), (f"127.0.0.1:{port}", 200), ("[::1]:7777", 200)):
            conn.request("GET", "/debates", headers={"Host": host})
            response = conn.getresponse()
            response.read()
            assert response.status == expected, host
        conn.close()


def tools_with(port: int, token: str) -> list[str]:
    """The tool names, listed by the official client sending the bearer token."""
    names: list[str] = []

    async def run() -> None:
        http_client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with (
            http_client,
            Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http_client)) as client,
        ):
            names.extend(t.name for t in (await client.list_tools()).tools)
            assert (await client.call_tool("list_debates", {})).structured_content == {"debates": []}

    anyio.run(run)
    return names


def test_mcp_http_off_loopback_needs_the_printed_token_and_an_allowed_host(tmp_path: Path, isolated_home: Path) -> None:
    with http_server(isolated_home, tmp_path, "--host", "0.0.0.0", "--allowed-hosts", "moot.example,10.1.2.3") as (
        port,
        proc,
    ):
        assert proc.stderr is not None
        told = [proc.stderr.readline().decode() for _ in range(4)]
        assert told[0].startswith(
            f"moot mcp: serving streamable HTTP at http://0.0.0.0:{port}/mcp (reachable from other"
        )
        token = told[1].split("moot mcp: token ", 1)[1].split(":", 1)[0]
        assert len(token) >= 24
        assert "moot.example" in told[2] and "10.1.2.3" in told[2]
        assert told[3].startswith("moot mcp: warning:") and "read any file" in told[3] and "run the commands" in told[3]

        local = f"127.0.0.1:{port}"
        assert post(port, {"Host": local}) == 401  # no token
        assert post(port, {"Host": local, "Authorization": "Bearer wrong-token"}) == 401
        with_token = {"Authorization": f"Bearer {token}"}
        assert post(port, {**with_token, "Host": f"evil.example:{port}"}) == 421  # not an allowed host
        assert post(port, {**with_token, "Host": f"127.0.0.1.attacker.example:{port}"}) == 421
        assert post(port, {**with_token, "Host": f"moot.example:{port}", "Origin": "http://evil.example"}) == 403
        assert (
            post(port, {**with_token, "Host": f"moot.example:{port}", "Origin": f"http://moot.example:{port}"}) == 200
        )
        assert "evaluate" in tools_with(port, token)


def test_mcp_http_takes_its_token_from_the_environment(tmp_path: Path, isolated_home: Path) -> None:
    env: dict[str, Any] = env_for(isolated_home, MOOT_MCP_TOKEN="token-from-the-environment-0123456789")
    with http_server(isolated_home, tmp_path, "--host", "0.0.0.0", env=env) as (port, proc):
        assert proc.stderr is not None
        proc.stderr.readline()
        assert proc.stderr.readline().decode() == (
            "moot mcp: token from MOOT_MCP_TOKEN: clients send 'Authorization: Bearer TOKEN'\n"
        )  # never printed
        assert post(port, {"Host": f"127.0.0.1:{port}"}) == 401
        assert "doctor" in tools_with(port, "token-from-the-environment-0123456789")


@pytest.mark.parametrize("bad", ["http://moot.example", "moot.example:8080", "two words"])
def test_allowed_hosts_takes_bare_names(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--http", "8765", "--host", "0.0.0.0", "--allowed-hosts", bad]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "--allowed-hosts takes host names or addresses without scheme or port" in line
