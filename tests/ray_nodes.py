"""Ray clusters on this machine for the tests (no tests here), each run by processes of their own so that
the test process never joins one (its Ray state stays its own: another module may `ray.init` a local
Ray). Each has its own auth token (in `env`, for the drivers the tests start), one CPU a node, no
dashboard, and small object stores.

- `ClusterKeeper`: a head and worker nodes (`ray.cluster_utils.Cluster`), nodes lost and added on demand;
- `RayNodes`: `ray start --head --block` as users start one (its own temp folder, so that no `ray.init()`
  on this machine takes it for the current cluster), with Ray Client.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

RAY = str(Path(sys.executable).with_name("ray"))
COMMON = ["--block", "--num-cpus=1", "--object-store-memory=80000000", "--disable-usage-stats"]
KEEPER = """
import json, os, sys
from ray.cluster_utils import Cluster

out = os.fdopen(os.dup(1), "w")  # the reports alone: whatever else writes to stdout (Ray does) goes to stderr
os.dup2(2, 1)

small = {"num_cpus": 1, "object_store_memory": 80 * 2**20}
cluster = Cluster(initialize_head=True, head_node_args={**small, "include_dashboard": False})
nodes = [cluster.add_node(**small) for _ in range(int(sys.argv[1]))]
cluster.wait_for_nodes()

def report(**more):
    raylets = [node.all_processes["raylet"][0].process.pid for node in nodes]
    print(json.dumps({"address": cluster.address, "raylets": raylets, **more}), file=out, flush=True)

def journaled(want):  # how many calls the batch's journal has received, once it has `want` (or after 300 s)
    import time, ray
    ray.init(address=cluster.address, namespace="moot", log_to_driver=False)
    end, seq = time.monotonic() + 300, 0
    while seq < want and time.monotonic() < end:
        names = [a["name"] for a in ray.util.list_named_actors(all_namespaces=True)]
        for name in [n for n in names if n.startswith("moot-journal-")]:
            seq = ray.get(ray.get_actor(name, namespace="moot").size.remote())["seq"]
        time.sleep(0.05)
    ray.shutdown()  # the keeper is no member of the cluster between questions
    return seq

report()
for line in sys.stdin:
    command, *args = line.split()
    more = {}
    if command == "lose":
        cluster.remove_node(nodes.pop(int(args[0])), allow_graceful=False)
    elif command == "add":
        nodes.append(cluster.add_node(**small))
        cluster.wait_for_nodes()
    elif command == "journaled":
        more["journaled"] = journaled(int(args[0]))
    report(**more)
cluster.shutdown()
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def _agent_ports() -> list[str]:
    """The ports each node's agents take (fixed defaults would clash between nodes on one machine)."""
    names = (
        "dashboard-agent-listen-port",
        "dashboard-agent-grpc-port",
        "metrics-export-port",
        "runtime-env-agent-port",
    )
    return [f"--{name}={free_port()}" for name in names]


class ClusterKeeper:
    """A head and `workers` worker nodes (`ray.cluster_utils.Cluster`, which picks free ports) kept by a
    process of its own, told what to do on its stdin: `lose I` (worker node I gone at once, every process
    of it killed, as a machine that dies) and `add`. Closing its stdin shuts the cluster down."""

    def __init__(self, workers: int) -> None:
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", KEEPER, str(workers)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            env=self.env,
        )
        self._read()

    @property
    def token(self) -> str:
        """The cluster's auth token: every process of it carries it (`ray_procs.tasks` finds them by it)."""
        return self.env["RAY_AUTH_TOKEN"]

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, "the cluster did not start"
        state: dict[str, Any] = json.loads(line)
        self.address: str = state["address"]
        self.raylets: list[int] = state["raylets"]
        return state

    def _tell(self, command: str) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._read()

    def journaled(self, calls: int) -> int:
        """How many calls the running batch's journal has received, once it has `calls` (or after 300 s):
        the keeper joins the cluster to ask it, so that the test process never does."""
        return int(self._tell(f"journaled {calls}")["journaled"])

    def lose(self, index: int) -> None:
        self._tell(f"lose {index}")

    def add(self) -> None:
        self._tell("add")

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class RayNodes:
    def __init__(self) -> None:
        self.temp = tempfile.mkdtemp(prefix="moot-ray-")
        self.gcs, self.client = free_port(), free_port()
        self.env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
        self.nodes: list[subprocess.Popen[bytes]] = []

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.gcs}"

    def start(self) -> RayNodes:
        head = [RAY, "start", "--head", f"--port={self.gcs}", f"--ray-client-server-port={self.client}"]
        head += ["--include-dashboard=false", f"--temp-dir={self.temp}", *COMMON, *_agent_ports()]
        self.nodes.append(self._spawn(head))
        end = time.monotonic() + 120
        while not (listening(self.gcs) and listening(self.client)):
            assert self.nodes[0].poll() is None and time.monotonic() < end, "ray start --head did not come up"
            time.sleep(0.3)
        return self

    def remove(self, node: subprocess.Popen[bytes]) -> None:
        node.terminate()
        try:
            node.wait(timeout=60)
        except subprocess.TimeoutExpired:
            node.kill()
            node.wait()
        self.nodes.remove(node)

    def stop(self) -> None:
        for node in reversed(list(self.nodes)):  # workers first, the head last
            self.remove(node)
        shutil.rmtree(self.temp, ignore_errors=True)

    def client_logs(self, lines: int = 15) -> str:
        """The last lines of the head's Ray Client logs (its proxy's, and the server it starts for each
        driver), for a failed test's message: they go with the temp folder when the nodes stop."""
        tails = []
        for log in sorted(Path(self.temp, "session_latest", "logs").glob("ray_client_server*.err")):
            kept = [line for line in log.read_text(errors="replace").splitlines() if "fork_posix" not in line]
            tails.append("\n".join([f"--- {log.name}", *kept[-lines:]]))
        return "\n".join(tails)

    def _spawn(self, cmd: list[str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=self.env)
