"""`--ray-address` naming a cluster that takes no connection is bad input (exit 2, one line, nothing sent,
nothing stored), found before `ray.init`: left to Ray, the batch would retry for minutes and then end as
interrupted. Runs in a fresh process so that an unfixed `ray.init` is cut off by the timeout, not waited for."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from moot.batch.backends import backend_for
from moot.batch.ray_backend import host_port
from moot.errors import UsageError
from moot.store import Store, batches
from moot.testing import FakeLLMServer

from .test_batch_support import item, judges_for, serve, write_items


def closed_port() -> int:
    """A local port that nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("10.0.0.5:6379", ("10.0.0.5", 6379)),
        ("ray://head.example:10001", ("head.example", 10001)),
        (" ray://[::1]:10001 ", ("::1", 10001)),
        ("auto", None),
        ("local", None),
        ("", None),
        ("head.example", None),
        ("ray://head.example", None),
        ("anyscale://my-cluster", None),
        ("head.example:99999", None),
    ],
)
def test_only_a_host_and_port_is_knocked_on(address: str, expected: tuple[str, int] | None) -> None:
    assert host_port(address) == expected


@pytest.mark.parametrize("form", ["127.0.0.1:{port}", "ray://127.0.0.1:{port}"])
def test_an_unreachable_cluster_is_bad_input(form: str, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(2)])
    address = form.format(port=closed_port())
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    run = subprocess.run(
        [*cmd, "--backend", "ray", "--ray-address", address], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"moot: error: cannot reach the Ray cluster at {address}: ")
    assert "refused" in run.stderr and len(run.stderr.splitlines()) == 1
    assert llm_server.requests == []
    assert not (tmp_path / "items.results.jsonl").exists()
    assert batches.list_batches(Store.open_default()) == []


def test_ray_address_from_the_environment_is_checked_too(monkeypatch: pytest.MonkeyPatch) -> None:
    address = f"ray://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("RAY_ADDRESS", address)
    with pytest.raises(UsageError, match=f"cannot reach the Ray cluster at {address}: "):
        backend_for("ray", 4, None)
    monkeypatch.setenv("RAY_ADDRESS", "auto")  # left to Ray
    assert backend_for("ray", 4, None).address is None  # type: ignore[attr-defined]
