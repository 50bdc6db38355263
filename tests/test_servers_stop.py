"""`moot view` and `moot mcp --http` run until they are stopped (the docs tag them `server`): Ctrl-C or
SIGTERM is their normal end, one calm line and exit 0, not `moot: error: interrupted` and exit 130."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop_once_serving(args: list[str], port: int, signum: int, home: Path) -> tuple[int, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", *args],
        env={**os.environ, "MOOT_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # stopped while it serves, as a user stops it
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("command", ["view", "mcp"])
def test_stopping_a_server_is_its_normal_end(command: str, signum: int, tmp_path: Path) -> None:
    port = free_port()
    args = ["view", "--port", str(port), "--no-open"] if command == "view" else ["mcp", "--http", str(port)]
    code, err = _stop_once_serving(args, port, signum, tmp_path)
    assert code == 0, err
    assert err.splitlines()[-1] == f"moot {command}: stopped"
    assert "error" not in err and "Traceback" not in err
