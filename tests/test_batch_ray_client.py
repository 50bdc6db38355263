"""`--ray-address` against a cluster started with `ray start --head` (one CPU, no dashboard), as users run
one: by its GCS address `HOST:PORT` and through Ray Client `ray://HOST:PORT`, each with `moot batch` in a
process of its own; and a worker's key from the `runtime_env` the driver connects with (Ray Client), not
from the driver's environment."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.testing import FakeLLMServer

from .ray_nodes import RayNodes
from .test_batch_support import item, judges_for, read_results, serve, write_items

pytest.importorskip("ray")


@pytest.fixture(scope="module")
def ray_head() -> Iterator[dict[str, int]]:
    """`ray start --head` alone (tests/ray_nodes.py); its GCS and Ray Client ports."""
    nodes = RayNodes()
    try:
        nodes.start()
        with pytest.MonkeyPatch.context() as env:  # the drivers the tests start carry the cluster's token
            for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
                env.setenv(name, nodes.env[name])
            yield {"gcs": nodes.gcs, "client": nodes.client}
    finally:
        nodes.stop()


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
