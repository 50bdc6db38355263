"""`--ray-address` against a cluster started with `ray start --head` (one CPU, no dashboard), as users run
one: by its GCS address `HOST:PORT` and through Ray Client `ray://HOST:PORT`, each with `moot batch` in a
process of its own; and a worker's key from the `runtime_env` the driver connects with (Ray Client), not
from the driver's environment."""

from __future__ import annotations

import json
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.testing import FakeLLMServer

from .test_batch_support import item, judges_for, read_results, serve, write_items

pytest.importorskip("ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def ray_head() -> Iterator[dict[str, int]]:
    """`ray start --head --block` on free ports, with its own temp folder (so that no `ray.init()` on this
    machine takes it for the current cluster) and its own auth token; terminating it stops its processes."""
    ports = {name: _free_port() for name in ("gcs", "client", "agent", "agent_grpc", "metrics", "env_agent")}
    temp = tempfile.mkdtemp(prefix="moot-ray-")
    ray = str(Path(sys.executable).with_name("ray"))
    cmd = [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={ports['gcs']}"]
    cmd += [f"--ray-client-server-port={ports['client']}", f"--dashboard-agent-listen-port={ports['agent']}"]
    cmd += [f"--dashboard-agent-grpc-port={ports['agent_grpc']}", f"--metrics-export-port={ports['metrics']}"]
    cmd += [f"--runtime-env-agent-port={ports['env_agent']}", "--num-cpus=1", "--include-dashboard=false"]
    cmd += ["--object-store-memory=80000000", "--disable-usage-stats", f"--temp-dir={temp}"]
    with pytest.MonkeyPatch.context() as env:
        env.setenv("RAY_AUTH_MODE", "token")  # what Ray does by default, with a token of this cluster's own
        env.setenv("RAY_AUTH_TOKEN", secrets.token_hex(32))
        yield from _head(cmd, ports, temp)


def _head(cmd: list[str], ports: dict[str, int], temp: str) -> Iterator[dict[str, int]]:
    head = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 120
        while not (_listening(ports["gcs"]) and _listening(ports["client"])):
            assert head.poll() is None and time.monotonic() < end, "ray start --head did not come up"
            time.sleep(0.5)
        yield ports
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)


@pytest.mark.parametrize("form", ["127.0.0.1:{gcs}", "ray://127.0.0.1:{client}"])
def test_a_batch_runs_on_a_cluster_by_either_address(
    form: str, ray_head: dict[str, int], llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n, other=n == 1) for n in range(3)])
    address = form.format(**ray_head)
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    cmd += ["--backend", "ray", "--ray-address", address, "--format", "json"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
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
    ray_head: dict[str, int], llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    data: dict[str, Any] = yaml.safe_load(judges.read_text())
    for judge in data["debate_judges"]:
        judge["api_key_env"] = "MOOT_RAY_TEST_KEY"
    judges.write_text(yaml.safe_dump(data))
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(2)])
    monkeypatch.setenv("MOOT_RAY_TEST_KEY", "key-of-the-driver")  # checked before any call, never sent
    address = f"ray://127.0.0.1:{ray_head['client']}"
    cmd = [sys.executable, "-c", RUNTIME_ENV_DRIVER, address, str(items), str(judges)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.split()[-1] == "2", run.stderr[-2000:]
    keys = {r.headers.get("authorization") for r in llm_server.requests}
    assert keys == {"Bearer key-of-the-workers"}
