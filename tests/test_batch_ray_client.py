"""`--ray-address` against a cluster started with `ray start --head` (one CPU, no dashboard), as users run
one: by its GCS address `HOST:PORT` and through Ray Client `ray://HOST:PORT`, each with `moot batch` in a
process of its own; and a worker's key from the `runtime_env` the driver connects with (Ray Client), not
from the driver's environment. A head that fails to start the driver's Ray Client server (as a busy one does)
is asked again, and when it never does the error is one line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.batch import ray_backend
from moot.batch.ray_backend import RayBackend
from moot.errors import UsageError
from moot.testing import FakeLLMServer

from .ray_nodes import RayNodes
from .test_batch_support import item, judges_for, read_results, serve, write_items

pytest.importorskip("ray")
# a driver's `moot batch` is given 300 s (subprocess.run below), and so is the test: on a loaded machine a head
# that fails to start the driver's Ray Client server costs a retry, each failed try some 30 s (Ray's grace period)
pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def ray_head() -> Iterator[RayNodes]:
    """`ray start --head` alone (tests/ray_nodes.py): its GCS and Ray Client ports, its Ray Client logs."""
    nodes = RayNodes()
    try:
        nodes.start()
        with pytest.MonkeyPatch.context() as env:  # the drivers the tests start carry the cluster's token
            for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
                env.setenv(name, nodes.env[name])
            yield nodes
    finally:
        nodes.stop()


@pytest.mark.parametrize("form", ["127.0.0.1:{gcs}", "ray://127.0.0.1:{client}"])
def test_a_batch_runs_on_a_cluster_by_either_address(
    form: str, ray_head: RayNodes, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n, other=n == 1) for n in range(3)])
    address = form.format(gcs=ray_head.gcs, client=ray_head.client)
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    cmd += ["--backend", "ray", "--ray-address", address, "--format", "json"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{run.stderr[-2000:]}\n{ray_head.client_logs()}"
    summary = json.loads(run.stdout)
    assert (summary["done"], summary["distribution"]) == (3, {"PASS": 2, "FAIL": 1})
    assert len(llm_server.requests) == 9
    assert [line["status"] for line in read_results(tmp_path / "items.results.jsonl")] == ["done"] * 3


RUNTIME_ENV_DRIVER = """
import sys, ray
from moot.batch import run_batch_sync
address, items, judges = sys.argv[1:]
ray.init(address, runtime_env={"env_vars": {"MOOT_RAY_TEST_KEY": "key-of-the-workers"}}, logging_level="WARNING")
summary = run_batch_sync(items, "evaluate", judges=judges, backend="ray", concurrency=2)
ray.shutdown()
print(summary.done)
"""


def test_workers_take_their_keys_from_the_runtime_env(
    ray_head: RayNodes, llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    data: dict[str, Any] = yaml.safe_load(judges.read_text())
    for judge in data["debate_judges"]:
        judge["api_key_env"] = "MOOT_RAY_TEST_KEY"
    judges.write_text(yaml.safe_dump(data))
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(2)])
    monkeypatch.setenv("MOOT_RAY_TEST_KEY", "key-of-the-driver")  # checked before any call, never sent
    address = f"ray://127.0.0.1:{ray_head.client}"
    cmd = [sys.executable, "-c", RUNTIME_ENV_DRIVER, address, str(items), str(judges)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.split()[-1] == "2", f"{run.stderr[-2000:]}\n{ray_head.client_logs()}"
    keys = {r.headers.get("authorization") for r in llm_server.requests}
    assert keys == {"Bearer key-of-the-workers"}


SERVER_DIED = """Initialization failure from server:
Traceback (most recent call last):
  File "/venv/site-packages/ray/util/client/server/proxier.py", line 772, in Datapath
    raise RuntimeError(
RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed logs.
"""


class Head:
    """`ray.init` against a Ray Client head that fails to start the driver's server `failures` times
    (Ray raises ConnectionAbortedError with the head's traceback), or fails with `error` at once."""

    def __init__(self, failures: int, error: Exception | None = None) -> None:
        self.failures, self.error, self.inits = failures, error, 0

    def init(self, **options: Any) -> None:
        self.inits += 1
        if self.error is not None:
            raise self.error
        if self.inits <= self.failures:
            raise ConnectionAbortedError(SERVER_DIED)


def connect(head: Head, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(ray_backend, "CONNECT_PAUSE_S", 0.0)
    monkeypatch.setattr(ray_backend, "_errors_to_stderr", lambda: None)  # this process's Ray is left alone
    backend = RayBackend(2, None)
    backend.address = "ray://head.example:10001"  # set after the knock on the address, which is not tested here
    asyncio.run(backend._connect(head))


def test_a_head_that_failed_to_start_the_drivers_server_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    head = Head(failures=ray_backend.CONNECT_TRIES - 1)
    connect(head, monkeypatch)
    assert head.inits == ray_backend.CONNECT_TRIES


def test_a_head_that_never_starts_it_is_one_line_of_bad_input(monkeypatch: pytest.MonkeyPatch) -> None:
    head = Head(failures=99)
    with pytest.raises(UsageError) as caught:
        connect(head, monkeypatch)
    assert head.inits == ray_backend.CONNECT_TRIES
    assert str(caught.value) == (
        f"cannot start or reach Ray (ray://head.example:10001) (tried {ray_backend.CONNECT_TRIES} times): "
        "Initialization failure from server: RuntimeError: Starting Ray client server failed. "
        "See ray_client_server_23000.err for detailed logs."
    )


@pytest.mark.parametrize(
    "error", [ConnectionError("ray client connection timeout"), RuntimeError("Version mismatch: the server has 2.9")]
)
def test_other_failures_to_connect_are_not_retried(error: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    head = Head(failures=0, error=error)
    with pytest.raises(UsageError, match=f"^cannot start or reach Ray \\(ray://head.example:10001\\): {error}$"):
        connect(head, monkeypatch)
    assert head.inits == 1
