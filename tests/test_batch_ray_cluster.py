"""`moot batch --backend ray` on a real multi-node Ray cluster on this machine (a head and two worker nodes,
one CPU each, `ray.cluster_utils.Cluster` kept by a process of its own: tests/ray_nodes.py), with the
driver a `moot batch` process of its own:

- one limit for the whole cluster: `limits: {custom: {concurrency: 2}}` over three workers, and the
  server never holds more than two requests; a 429's Retry-After stops every worker's calls;
- faults: a worker process killed, the driver killed with kill -9 (and rerun), a node removed. Every item
  ends with one result line, and no call whose reply was delivered is sent again. In the worker and driver
  kills the fast judges' replies go out, are read and are copied to the journal with a CPU-bound process on
  every core (`busy`), as on a loaded CI runner, and the kill lands once the calls the test needs are in
  the journal (an event, not a wait): a call the journal had is never paid twice, and only calls in flight
  at the kill (sent by the lost worker, their replies not recorded by it) are sent again. Each records
  `in_flight` and `resent` (pytest's `record_property`), which `benchmarks/bench_ray.py --loaded` reports.

The local server's responder holds each request for a while and counts how many it holds at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.store import Store
from moot.testing import FakeLLMServer, Reply

from .ray_nodes import ClusterKeeper
from .ray_procs import Busy, parent, recorded, tasks
from .test_batch_support import Responder, item, judges_for, read_results, write_items

pytest.importorskip("ray")
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="finds Ray's processes in /proc")

N = 6  # items: two per task, three tasks (one per node)


@pytest.fixture
def busy() -> Iterator[Busy]:
    """A CPU-bound process on every core once the test starts them (ended, by their own ids, at its end)."""
    hogs = Busy()
    try:
        yield hogs
    finally:
        hogs.stop()


@pytest.fixture(scope="module")
def cluster() -> Iterator[ClusterKeeper]:
    keeper = ClusterKeeper(workers=2)
    try:
        with pytest.MonkeyPatch.context() as env:  # the drivers the tests start carry the cluster's token
            for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
                env.setenv(name, keeper.env[name])
            yield keeper
    finally:
        keeper.stop()


class Holding:
    """Answers as `Responder` does, holding each request `hold[model]` seconds (else `default`) and
    counting the requests held at once; `special(n)` may answer the n-th request instead. With `gated`, every
    request waits for `go` first, and `gated`'s requests then wait for `gate`."""

    def __init__(
        self,
        hold: dict[str, float],
        default: float = 0.05,
        special: Callable[[int], Reply | None] | None = None,
        gated: str = "",
    ):
        self.hold, self.default, self.special = hold, default, special
        self.gated, self.gate = gated, threading.Event()  # `gated`'s requests are held until the gate opens
        self.go = threading.Event()
        if not gated:
            self.go.set()
        self.lock = threading.Lock()
        self.held = self.most = self.seen = 0
        self.answered: list[tuple[float, int, str, int]] = []  # (when, item, model, status) of each reply

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        with self.lock:
            self.seen += 1
            number = self.seen
            self.held += 1
            self.most = max(self.most, self.held)
        try:
            reply = self.special(number) if self.special else None
            self.go.wait(timeout=600)
            if reply is None and model == self.gated:
                self.gate.wait(timeout=600)
            elif reply is None:
                time.sleep(self.hold.get(model, self.default))
            if reply is None:
                reply = Responder()(model, body)
            return reply
        finally:
            with self.lock:
                self.held -= 1
                self.answered.append((time.monotonic(), _item_of(body), model, reply.status if reply else 0))


def _item_of(body: dict[str, Any]) -> int:
    text = json.dumps(body)
    (i,) = [i for i in range(N) if f"return x + {i}\\n" in text]
    return i


def _setup(tmp_path: Path, server: FakeLLMServer, limits: dict[str, Any] | None = None) -> tuple[Path, Path]:
    judges = judges_for("evaluate", tmp_path, server)
    if limits is not None:
        data = yaml.safe_load(judges.read_text()) | {"limits": limits}
        judges.write_text(yaml.safe_dump(data))
    return write_items(tmp_path / "items.jsonl", [item("evaluate", i) for i in range(N)]), judges


def _driver(items: Path, judges: Path, address: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    cmd += ["--backend", "ray", "--ray-address", address, "--concurrency", str(N), "--format", "json"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(driver: subprocess.Popen[str], timeout: float = 240) -> dict[str, Any]:
    out, err = driver.communicate(timeout=timeout)
    assert driver.returncode == 0, err[-2000:]
    return json.loads(out)  # type: ignore[no-any-return]


def _until(check: Callable[[], bool], timeout: float = 300, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.05)


def _ok_calls() -> int:
    return len(_stored())


def _stored() -> list[tuple[int, str]]:
    """The (item, model) of every answered call in the batch's store, one entry per paid attempt."""
    store = Store.open_default()
    try:
        rows = store.execute(
            "SELECT b.item_id, c.model FROM calls AS c JOIN batch_items AS b ON b.debate_id = c.debate_id"
            " WHERE c.status = 'ok'"
        )
        return [(int(str(r["item_id"])[1:]), str(r["model"])) for r in rows]
    finally:
        store.close()


def _sent(server: FakeLLMServer) -> Counter[tuple[int, str]]:
    return Counter((_item_of(r.body), r.model) for r in server.requests)


def _one_line_each(tmp_path: Path) -> None:
    lines = read_results(tmp_path / "items.results.jsonl")
    assert sorted(line["id"] for line in lines) == [f"e{i}" for i in range(N)]
    assert all(line["status"] == "done" for line in lines)


def test_one_concurrency_limit_for_three_workers(
    cluster: ClusterKeeper, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    holding = Holding({}, default=0.6)  # long enough that all three tasks overlap, however late one starts
    llm_server.responder = holding
    items, judges = _setup(tmp_path, llm_server, {"custom": {"concurrency": 2}})
    driver = _driver(items, judges, cluster.address)
    most_tasks = 0
    while driver.poll() is None:
        most_tasks = max(most_tasks, len(tasks(cluster.token)))
        time.sleep(0.05)
    summary = _finish(driver)
    assert summary["done"] == N and len(llm_server.requests) == 3 * N
    assert most_tasks >= 3  # the batch ran on three workers at once
    assert holding.most == 2  # and together they never had more than two requests at the server
    _one_line_each(tmp_path)


def test_a_retry_after_pauses_every_worker(cluster: ClusterKeeper, llm_server: FakeLLMServer, tmp_path: Path) -> None:
    pause = 2.0

    def special(n: int) -> Reply | None:
        return Reply(status=429, headers={"Retry-After": str(pause)}) if n == 7 else None

    holding = Holding({}, default=0.3, special=special)
    llm_server.responder = holding
    items, judges = _setup(tmp_path, llm_server, {"custom": {"concurrency": 3}})
    summary = _finish(_driver(items, judges, cluster.address))
    assert summary["done"] == N
    (refused,) = [t for t, _, _, status in holding.answered if status == 429]
    arrivals = [r.at for r in llm_server.requests]
    during = [t - refused for t in arrivals if refused + 0.3 < t < refused + pause - 0.1]
    assert during == []  # no worker sent anything while the vendor asked to wait
    assert any(t > refused + pause for t in arrivals)  # and then they all went on
    _one_line_each(tmp_path)


def _kill_test(
    llm_server: FakeLLMServer, tmp_path: Path, address: str
) -> tuple[Holding, Path, Path, subprocess.Popen[str]]:
    """A batch whose requests are all held until the test opens `holding.go` (the fast judges are then
    answered after 0.05 s), and every 'ev-against' call until it opens `holding.gate` (after its fault)."""
    holding = llm_server.responder = Holding({}, gated="ev-against")
    items, judges = _setup(tmp_path, llm_server, {"custom": {"concurrency": 3 * N}})  # every call at once
    data = yaml.safe_load(judges.read_text())  # a held call is not given up on, however long the cores are busy
    data["debate_judges"] = [{**judge, "timeout": 600} for judge in data["debate_judges"]]
    judges.write_text(yaml.safe_dump(data))
    return holding, items, judges, _driver(items, judges, address)


def _no_completed_call_twice(llm_server: FakeLLMServer, holding: Holding, cut: float) -> set[int]:
    """No call answered before `cut` (when a worker, a node or the driver was lost) was sent again: only
    calls in flight then were. Returns the items whose calls were sent again."""
    sent = _sent(llm_server)
    completed = {(i, model) for t, i, model, status in holding.answered if status == 200 and t < cut}
    twice = {key for key, n in sent.items() if n > 1}
    assert completed and not twice & completed
    # only the held calls may go out twice (the lost node's, sent again elsewhere), and none more than twice
    assert {model for _, model in twice} <= {"ev-against"} and max(sent.values()) <= 2 and len(sent) == 3 * N
    return {i for i, _ in twice}


class Lost:
    """What the tasks about to be lost held when the fault landed: their debates, and the calls they had
    recorded (and so sent to the journal); `cut` is when the fault landed."""

    def __init__(self, pids: list[int]) -> None:
        self.debates: set[str] = set()
        self.recorded: set[tuple[str, str]] = set()
        for pid in pids:
            debates, calls = recorded(pid)
            self.debates |= debates
            self.recorded |= calls
        self.cut = time.monotonic()

    def in_flight(self, llm_server: FakeLLMServer) -> set[tuple[int, str]]:
        """The lost tasks' calls sent before the fault whose replies they had not recorded."""
        items = _items_of_debates()
        mine = {items[d] for d in self.debates}
        done = {(items[d], model) for d, model in self.recorded}
        sent = {(_item_of(r.body), r.model) for r in llm_server.requests if r.at < self.cut}
        return {(i, model) for i, model in sent - done if i in mine}


def _items_of_debates() -> dict[str, int]:
    store = Store.open_default()
    try:
        rows = store.execute("SELECT item_id, debate_id FROM batch_items WHERE debate_id IS NOT NULL")
        return {str(r["debate_id"]): int(str(r["item_id"])[1:]) for r in rows}
    finally:
        store.close()


def _paid_once(llm_server: FakeLLMServer, holding: Holding, lost: Lost, record: Callable[[str, object], None]) -> None:
    """Counted through the server, after the run: no call was answered twice but one the lost tasks had in
    flight at the fault, and the store holds one paid attempt of every call (a call the journal had, sent
    again, would be there twice). Records how many calls were in flight and how many were answered twice."""
    answered = Counter((i, model) for _, i, model, status in holding.answered if status == 200)
    twice = {key for key, n in answered.items() if n > 1}
    in_flight = lost.in_flight(llm_server)
    record("in_flight", len(in_flight))
    record("resent", len(twice))
    assert in_flight and twice <= in_flight, sorted(twice - in_flight)
    stored = Counter(_stored())
    assert set(stored) == set(answered) and max(stored.values()) == 1, [k for k, n in stored.items() if n > 1]


def _recorded_by(pids: list[int]) -> int:
    return sum(len(recorded(pid)[1]) for pid in pids)


@pytest.mark.timeout(300)  # every core busy: the cluster's processes get a share of them
def test_a_killed_worker_costs_no_completed_call(
    busy: Busy,
    cluster: ClusterKeeper,
    llm_server: FakeLLMServer,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    holding, _, _, driver = _kill_test(llm_server, tmp_path, cluster.address)
    _until(lambda: holding.seen == 3 * N, what="every call sent")  # every task is running its debates
    busy.start()
    holding.go.set()  # the fast replies are read and copied with every core busy
    _until(lambda: _ok_calls() == 2 * N, what="the fast calls in the batch's store")  # as they complete
    victim = tasks(cluster.token)[0]
    lost = Lost([victim])
    os.kill(victim, signal.SIGKILL)  # its held calls are in flight; its fast ones, stored
    holding.gate.set()
    summary = _finish(driver)
    assert summary["done"] == N
    _paid_once(llm_server, holding, lost, record_property)
    _one_line_each(tmp_path)


@pytest.mark.timeout(300)
def test_a_driver_killed_with_kill_9_is_rerun(
    busy: Busy,
    cluster: ClusterKeeper,
    llm_server: FakeLLMServer,
    tmp_path: Path,
    record_property: Callable[[str, object], None],
) -> None:
    holding, items, judges, driver = _kill_test(llm_server, tmp_path, cluster.address)
    _until(lambda: holding.seen == 3 * N, what="every call sent")
    os.kill(driver.pid, signal.SIGSTOP)  # the driver stores nothing more: the fast calls wait in the journal
    busy.start()
    holding.go.set()
    pids = tasks(cluster.token)
    # the event the promise names: the journal has the fast calls (a worker's store has each a moment before)
    assert cluster.journaled(2 * N) == 2 * N
    _until(lambda: _recorded_by(pids) == 2 * N, what="the fast calls in the workers' stores")
    assert _ok_calls() == 0
    lost = Lost(pids)
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()
    holding.gate.set()
    _until(lambda: not tasks(cluster.token), what="the dead driver's workers to go")
    busy.stop()  # the kill's window was loaded; the rerun's start need not be
    summary = _finish(_driver(items, judges, cluster.address))
    assert summary["done"] == N
    # the journal held the calls the workers had recorded: none of them is paid again
    _paid_once(llm_server, holding, lost, record_property)
    _one_line_each(tmp_path)


def test_a_removed_node_s_tasks_run_elsewhere(
    cluster: ClusterKeeper, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    holding, _, _, driver = _kill_test(llm_server, tmp_path, cluster.address)
    holding.go.set()
    _until(lambda: _ok_calls() == 2 * N, what="the fast calls in the batch's store")
    raylets = [parent(pid) for pid in tasks(cluster.token)]  # a task's parent is its node's raylet
    (index, *_) = [i for i, raylet in enumerate(cluster.raylets) if raylet in raylets]  # a worker node's
    cut = time.monotonic()
    cluster.lose(index)
    holding.gate.set()
    try:
        summary = _finish(driver)
    finally:
        cluster.add()  # the cluster as the other tests know it
    assert summary["done"] == N
    # the node's two held calls are sent again elsewhere; whether the first sending counts as answered depends
    # on whether the server wrote its reply before it saw the node's socket close: at most those two
    assert len(_no_completed_call_twice(llm_server, holding, cut)) <= 2
    _one_line_each(tmp_path)
