"""Servers, cancel and the plugin's launcher: `moot view` and `moot mcp --http` ask a token on loopback too
(another account on the machine reaches 127.0.0.1), `--no-token` leaves it out on loopback only, the view
compares tokens as bytes (a non-ASCII token is a wrong one, not a 500); `moot cancel` stops a running debate
before its next call, and `cancelled` is never overwritten by `finished`; the launcher never runs a `moot`
found through a relative PATH entry."""

from __future__ import annotations

import http.client
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moot.api.host import cancel_debate
from moot.cli.app import main
from moot.store import Store
from moot.testing import FakeLLMServer
from moot.testing.fake_llm_server import Reply

from .replies import CRITERIA, round1
from .test_plugin import LAUNCHER, run_launcher

MOOT = [sys.executable, "-m", "moot"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def served() -> Iterator[Any]:
    """Start `moot ARGS` (a server on a free loopback port); yields (port, the first line naming the token)."""
    procs: list[subprocess.Popen[str]] = []

    def start(*args: str, port_flag: str) -> tuple[int, str]:
        port = free_port()
        proc = subprocess.Popen(
            [*MOOT, *args, port_flag, str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        procs.append(proc)
        stream = proc.stdout if args[0] == "view" else proc.stderr
        assert stream is not None
        lines = [stream.readline() for _ in range(2 if args[0] == "view" else 1)]
        if args[0] == "mcp" and "--no-token" not in args:
            lines.append(stream.readline())
        wait_listening(port)
        return port, "".join(lines)

    yield start
    for proc in procs:
        proc.terminate()
        proc.communicate(timeout=30)


def wait_listening(port: int) -> None:
    for _ in range(600):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            threading.Event().wait(0.1)
    raise AssertionError(f"nothing listens on {port}")


def get(port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET", body: bytes = b"") -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.putrequest(method, path)
    for k, v in (headers or {}).items():
        conn.putheader(k, v.encode("latin-1"))
    conn.putheader("content-length", str(len(body)))
    conn.endheaders(body)
    status = conn.getresponse().status
    conn.close()
    return status


def test_the_view_asks_its_token_on_loopback_and_compares_it_as_bytes(served: Any) -> None:
    port, said = served("view", "--no-open", port_flag="--port")
    token = re.search(r"\?token=([\w-]+)", said)
    assert token, said
    assert get(port, "/debates") == 401
    assert get(port, "/debates", {"Authorization": "token \u00fc\u00e9"}) == 401  # not a 500
    assert get(port, "/debates", {"Authorization": f"token {token.group(1)}"}) == 200
    open_port, said_open = served("view", "--no-open", "--no-token", port_flag="--port")
    assert "?token=" not in said_open
    assert get(open_port, "/debates") == 200


def test_mcp_http_asks_its_token_on_loopback(served: Any) -> None:
    port, said = served("mcp", port_flag="--http")
    token = re.search(r"token (\S+): clients send", said)
    assert token, said
    hello = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
    json_headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    assert get(port, "/mcp", json_headers, "POST", hello) == 401
    authorised = {**json_headers, "Authorization": f"Bearer {token.group(1)}"}
    assert get(port, "/mcp", authorised, "POST", hello) != 401
    open_port, _ = served("mcp", "--no-token", port_flag="--http")
    assert get(open_port, "/mcp", json_headers, "POST", hello) != 401


def test_no_token_is_refused_off_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", "--host", "0.0.0.0", "--no-token", "--no-open"]) == 2
    assert "--no-token is allowed only on a loopback address" in capsys.readouterr().err
    assert main(["mcp", "--http", "8765", "--host", "0.0.0.0", "--no-token"]) == 2
    assert "--no-token goes with --http on a loopback address only" in capsys.readouterr().err


def test_moot_cancel_stops_a_running_debate_before_its_next_call(
    tmp_path: Path, llm_server: FakeLLMServer, judges_file: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first vendor call of round 1 runs `moot cancel` (from another thread, with a store of its own) and
    then answers: the debate makes no call of round 2, stops with one line, and stays cancelled."""
    said: list[str] = []

    def respond(model: str, body: dict[str, Any]) -> Reply:
        if not said:
            [row] = Store.open_default().list_debates()
            said.append(cancel_debate(row.id)["status"])
        return Reply(text=round1(2.0 if model == "judge-a" else 5.0, 3))

    llm_server.responder = respond
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    judges = judges_file(["judge-a", "judge-b"])
    argv = ["evaluate", "-s", "plan.md", "--criteria", CRITERIA, "--judges", str(judges), "--no-reports"]
    code = main([*argv, "--no-progress", "--format", "json"])
    err = capsys.readouterr().err
    assert said == ["cancelled"]
    assert code == 3 and "was cancelled: no further call was made" in err
    assert len(llm_server.requests) <= 2  # round 1's calls only: none after the cancel
    [row] = Store.open_default().list_debates()
    assert row.status == "cancelled"
    assert main(["cancel", row.id]) == 2
    assert "has already ended (cancelled)" in capsys.readouterr().err


def test_the_store_never_writes_finished_over_cancelled(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "m.db"))
    store.create_debate("d1", "evaluate", {})
    assert store.mark_cancelled("d1")
    store.set_status("d1", "finished", result={"x": 1})
    assert store.debate_status("d1") == "cancelled"
    assert not store.mark_cancelled("d1")


def test_the_launcher_skips_relative_path_entries(tmp_path: Path) -> None:
    planted = tmp_path / "clone"
    planted.mkdir()
    (planted / "moot").write_text('#!/bin/sh\necho "planted ran"\n')
    (planted / "moot").chmod(0o755)
    env = {"PATH": f".:bin:{LAUNCHER.parent}:/usr/bin:/bin", "HOME": str(tmp_path), "OPENAI_API_KEY": "sk-x"}
    r = subprocess.run([str(LAUNCHER), "mcp"], env=env, cwd=planted, capture_output=True, text=True, timeout=30)
    assert "planted ran" not in r.stdout
    assert r.returncode == 127 and "moot: not installed" in r.stderr
    assert run_launcher({**env, "PATH": "/usr/bin:/bin"}, "mcp").returncode == 127
