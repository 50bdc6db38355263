"""Helpers for tests that share one store between processes: an `moot mcp --http` server started and stopped,
and `moot` CLI runs, all on one MOOT_HOME."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MOOT = [sys.executable, "-m", "moot"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def env_for(home: Path, **extra: str) -> dict[str, str]:
    return {**os.environ, "MOOT_HOME": str(home), **extra}


def wait_for_port(proc: subprocess.Popen[bytes], port: int) -> None:
    """Until the server listens (it fails the test if it exits or takes over 60 s)."""
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)


@contextmanager
def http_server(
    home: Path, cwd: Path, *args: str, env: dict[str, str] | None = None, wait: bool = True
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """`moot mcp --http PORT ARGS` on this machine, until the block ends: its port and process (listening
    already unless `wait` is false: see `wait_for_port`). On loopback (no `--host`) with `--no-token`, the
    single-user setting: the tests that use it are about the store, not the token."""
    port = free_port()
    single_user = [] if "--host" in args else ["--no-token"]
    proc = subprocess.Popen(
        [*MOOT, "mcp", "--http", str(port), *single_user, *args],
        env=env or env_for(home),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        if wait:
            wait_for_port(proc, port)
        yield port, proc
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        if proc.stderr:
            proc.stderr.close()


def cli(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MOOT, *args], env=env_for(home), cwd=cwd, capture_output=True, text=True, timeout=120)
