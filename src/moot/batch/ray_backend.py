"""`--backend ray`: a batch's items as Ray tasks, several debates per task, on an existing cluster
(`--ray-address`, or `RAY_ADDRESS`) or on a local Ray that the batch starts and stops.

The driver prepares each debate (its inputs read and checked here, its share of `--max-cost` reserved)
and sends its stored request; a task runs its chunk of debates concurrently in a store of its own. Two
actors on the head node serve the whole batch:

- the limiter (`ray_limiter`, reached through `ray_leases`): each provider's `limits:` held once for
  every worker, so eight workers under `concurrency: 10` send at most ten calls at once, not eighty;
- the journal (`ray_journal`): each call a worker completes is sent there at once, and the driver stores
  it in the batch's store within `DRAIN_S`. A task whose worker dies (or whose node is removed) is run
  again by Ray (`MAX_RETRIES`) and replays those calls; a driver killed with kill -9 leaves the journal
  standing, and the rerun stores what it holds before anything runs.

A task returns each debate's outcome and the rest of its records (rounds, its end), which the driver
imports before writing the item's line, so a batch run on Ray resumes exactly like a local one.

Workers need moot importable (the driver passes its PYTHONPATH) and their own vendor keys: the stored
requests carry none, and the driver's environment is not sent (only MOOT_HOME, MOOT_JUDGES and
PYTHONPATH); a judges file's literal `api_key` does travel with the file. Ray is imported only here.

A cluster named by host and port is knocked on (one TCP connection) before `ray.init`: Ray itself retries an
unreachable address for minutes and then signals its own process, which would end the batch as interrupted.
A `ray://` head that answers but fails to start this driver's Ray Client server (Ray's "Initialization failure
from server", as a busy head does) is asked again (`CONNECT_TRIES`): nothing has been sent to it yet.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
import time
import uuid
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from moot.batch.debates import ItemEnded, ItemOutcome, Ready, Shared, Started, Work, close_judges, mark_running, prepare
from moot.batch.ray_journal import NAMESPACE, CallJournal, Drain, journal_name
from moot.batch.ray_limiter import ClusterLimiter
from moot.batch.ray_worker import Unit, UnitResult, run_units
from moot.errors import MissingExtra, UsageError
from moot.protocol.prepared import storable
from moot.store import batches
from moot.store.transfer import export_debate, import_intact

CHUNK_MOST = 32  # debates per task at most: a task's debates start together and it ends with its slowest
MAX_RETRIES = 3  # Ray runs a task again when its worker dies or its node is removed
DRAIN_S = 0.5  # the driver stores the journal's calls at least this often
HEAD = {"node:__internal_head__": 0.001}  # the limiter and the journal live on the head node
WORKER_ENV = ("MOOT_HOME", "MOOT_JUDGES")
REACH_TIMEOUT = 3.0  # seconds to open a TCP connection to the cluster's address before giving up
CONNECT_TRIES = 3  # a Ray Client head that failed to start this driver's server is asked this many times
CONNECT_PAUSE_S = 2.0  # before the second try; twice that before the third
SERVER_INIT_FAILED = "Initialization failure from server"  # Ray Client: the head's reply to a driver's init


def chunk_size(concurrency: int, slots: int = 2) -> int:
    """Debates per task: the batch's concurrency spread over the cluster's task slots (its CPUs), so that
    every slot runs one task; at most `CHUNK_MOST`."""
    return max(1, min(CHUNK_MOST, -(-concurrency // max(1, slots))))


def worker_env() -> dict[str, str]:
    """What the workers must see of the driver's environment: moot's home and where moot is imported from."""
    env = {k: os.environ[k] for k in WORKER_ENV if os.environ.get(k)}
    source = str(Path(__file__).resolve().parents[2])  # the folder holding the `moot` package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH", "")) if p)
    return env


class RayBackend:
    live_spend = False  # spend reaches the batch's store as the journal's calls are stored, not by events

    def __init__(self, concurrency: int, address: str | None) -> None:
        if importlib.util.find_spec("ray") is None:
            raise MissingExtra("ray", "ray")
        self.concurrency = concurrency
        self.size = chunk_size(concurrency)
        self.tasks = max(1, -(-concurrency // self.size))
        self.address = address
        self.drain: Drain | None = None  # the journal's calls into the batch's store
        self.ends_seconds = 0.0  # time spent storing the debates' ends as tasks return
        self.limiter_stats: dict[str, Any] = {}  # the limiter's messages, when the run ended
        if not _ray_running():  # a Ray the caller started is used as it is, whatever the address says
            check_reachable(address or os.environ.get("RAY_ADDRESS") or "")

    @property
    def merge_seconds(self) -> float:
        """The driver's time merging the workers' records into the batch's store (calls and ends)."""
        return self.ends_seconds + (self.drain.seconds if self.drain is not None else 0.0)

    async def run(self, works: Sequence[Work], shared: Shared, started: Started, ended: ItemEnded) -> None:
        ray = await asyncio.to_thread(_ray)
        ours = not ray.is_initialized()
        if ours:
            await self._connect(ray)
        try:
            await self._drive(ray, works, shared, started, ended)
        finally:
            if ours:
                ray.shutdown()

    async def _connect(self, ray: Any) -> None:
        """Join the cluster at `address` (or RAY_ADDRESS), else start a local Ray for this batch. A Ray Client
        head whose server for this driver did not start is asked again, up to `CONNECT_TRIES` times."""
        options = {"include_dashboard": False, "logging_level": "WARNING", "log_to_driver": False}
        for tries in range(1, CONNECT_TRIES + 1):
            try:
                await asyncio.to_thread(ray.init, address=self.address, **options)
                break
            except (ConnectionError, RuntimeError, ValueError) as e:
                if tries < CONNECT_TRIES and _server_init_failed(e):
                    await asyncio.sleep(CONNECT_PAUSE_S * tries)
                    continue
                where = self.address or os.environ.get("RAY_ADDRESS") or "a local Ray"
                after = f" (tried {tries} times)" if tries > 1 else ""
                raise UsageError(f"cannot start or reach Ray ({where}){after}: {_reason(e)}") from None
        _errors_to_stderr()

    def _spread(self, ray: Any) -> None:
        """One task per CPU of the cluster, each with its share of the batch's concurrency."""
        slots = int(ray.cluster_resources().get("CPU", 1))
        self.size = chunk_size(self.concurrency, slots)
        self.tasks = max(1, -(-self.concurrency // self.size))

    async def _drive(self, ray: Any, works: Sequence[Work], shared: Shared, started: Started, ended: ItemEnded) -> None:
        env = {"env_vars": worker_env()}
        journal = await asyncio.to_thread(_journal, ray, shared.batch_id, env)
        drain = self.drain = Drain(ray, journal, shared.store)
        await drain.run()  # what the workers of a driver killed earlier sent, stored before anything runs
        works = [_resumed(w, shared) for w in works]
        limiter = await asyncio.to_thread(_limiter, ray, shared, env)
        task = ray.remote(run_units).options(runtime_env=env, max_retries=MAX_RETRIES)
        await asyncio.to_thread(self._spread, ray)
        limits = (shared.limits.default, shared.limits.per_provider, limiter, journal)
        chunks = [list(works[i : i + self.size]) for i in range(0, len(works), self.size)]
        flying: dict[Any, list[Unit]] = {}
        by_id = {w.item.id: w for w in works}
        try:
            while chunks or flying:
                while chunks and len(flying) < self.tasks:
                    units = await self._units(chunks.pop(0), shared, started, ended)
                    if units:
                        flying[task.remote(units, *limits)] = units
                if flying:
                    ready, _ = await asyncio.to_thread(ray.wait, list(flying), num_returns=1, timeout=DRAIN_S)
                    await drain.run()
                    for ref in ready:
                        await self._land(ray, ref, flying.pop(ref), shared, by_id, ended, journal)
        except BaseException:
            for ref in flying:
                ray.cancel(ref, force=True)
            raise
        finally:
            await self._close(ray, drain, journal, limiter)

    async def _close(self, ray: Any, drain: Drain, journal: Any, limiter: Any) -> None:
        """The journal's last calls stored, then the limiter and the journal ended. Should storing fail, the
        journal stays (it is detached): the next run of the batch stores what it holds."""
        with suppress(Exception):
            self.limiter_stats = await asyncio.to_thread(ray.get, limiter.stats.remote(), timeout=5)
        ray.kill(limiter)
        await drain.run()
        ray.kill(journal)

    async def _units(self, chunk: list[Work], shared: Shared, started: Started, ended: ItemEnded) -> list[Unit]:
        """The chunk's debates prepared here (an item that cannot start ends here), as units for a task."""
        units = []
        for work in chunk:
            started(work)
            ready = await prepare(work, shared)
            if isinstance(ready, ItemOutcome):
                ended(ready)
                continue
            units.append(_unit(ready, shared))
            await close_judges(ready.prepared)  # the worker builds its own
            mark_running(work, shared)
        return units

    async def _land(
        self,
        ray: Any,
        ref: Any,
        units: list[Unit],
        shared: Shared,
        by_id: dict[str, Work],
        ended: ItemEnded,
        journal: Any,
    ) -> None:
        """A task's debates into the batch's store (their calls are there already, from the journal), then
        each item's outcome."""
        try:
            results: list[UnitResult] = await asyncio.to_thread(ray.get, ref)
        except Exception as e:  # the task failed for good (retries spent, moot not importable there)
            results = [UnitResult(u.item_id, u.debate_id, "failed", None, f"Ray task failed: {e}", None) for u in units]
        t0 = time.perf_counter()
        # the debates' ends, in one transaction (a debate whose end is not intact stays unfinished in the
        # store, and the next run resumes it by replaying its calls)
        import_intact(shared.store, [r.export for r in results if r.export is not None])
        self.ends_seconds += time.perf_counter() - t0
        journal.forget.remote([r.debate_id for r in results])
        for r in results:
            if shared.cap is not None:
                await shared.cap.release(r.debate_id, batches.debate_cost(shared.store, r.debate_id))
            work = by_id[r.item_id]
            in_store = shared.store.get_debate(r.debate_id) is not None
            ended(ItemOutcome(work.item, r.debate_id if in_store else None, r.status, r.result, r.error))


def host_port(address: str) -> tuple[str, int] | None:
    """The host and port of `HOST:PORT` or `ray://HOST:PORT`; None for what Ray resolves itself (`auto`,
    `local`, empty, other schemes) or cannot be a socket address (no port, a port out of range)."""
    rest = address.strip()
    if rest.startswith("ray://"):
        rest = rest.removeprefix("ray://")
    elif "://" in rest:
        return None
    try:
        parts = urlsplit(f"//{rest}")
        port = parts.port
    except ValueError:
        return None
    return (parts.hostname, port) if parts.hostname and port is not None else None


def check_reachable(address: str, timeout: float = REACH_TIMEOUT) -> None:
    """Bad input, before anything is sent or stored, when the cluster at `address` takes no connection."""
    target = host_port(address)
    if target is None:
        return
    try:
        with socket.create_connection(target, timeout=timeout):
            pass
    except OSError as e:
        reason = f"no answer within {timeout:g} s" if isinstance(e, TimeoutError) else e.strerror or str(e)
        raise UsageError(f"cannot reach the Ray cluster at {address}: {reason}") from None


def _server_init_failed(e: BaseException) -> bool:
    """Ray Client's head took the connection but could not start the driver's server (it died or did not
    come up in time); a new connection gets a new one."""
    return isinstance(e, ConnectionAbortedError) and str(e).startswith(SERVER_INIT_FAILED)


def _reason(e: BaseException) -> str:
    """Ray's error in one line; of the head's traceback, only its last line (the error it ended with)."""
    text = str(e).strip()
    if _server_init_failed(e):
        last = [line.strip() for line in text.splitlines() if line.strip()][-1]
        text = SERVER_INIT_FAILED if last.startswith(SERVER_INIT_FAILED) else f"{SERVER_INIT_FAILED}: {last}"
    return " ".join(text.split())[:300]


def _ray_running() -> bool:
    ray = sys.modules.get("ray")  # not imported: not running, and no need to import it to know
    return ray is not None and bool(ray.is_initialized())


def _unit(ready: Ready, shared: Shared) -> Unit:
    work = ready.work
    export = export_debate(shared.store, work.debate_id) if work.resume else None
    return Unit(
        item_id=work.item.id,
        protocol=ready.prepared.protocol,
        debate_id=work.debate_id,
        request=storable(ready.prepared.request),
        panel=ready.prepared.panel,
        budget=ready.options.budget,
        pricing=shared.pricing,
        export=export,
    )


def _resumed(work: Work, shared: Shared) -> Work:
    """A debate the journal brought into the store (its driver was killed before storing it) resumes."""
    if work.resume or shared.store.get_debate(work.debate_id) is None:
        return work
    return replace(work, resume=True)


def _journal(ray: Any, batch_id: str, env: dict[str, Any]) -> Any:
    """The batch's journal: the one a killed driver left, else a new one (detached, so that it outlives a
    driver killed with kill -9; this run ends it)."""
    actor = ray.remote(CallJournal).options(
        name=journal_name(batch_id),
        namespace=NAMESPACE,
        lifetime="detached",
        get_if_exists=True,
        num_cpus=0,
        resources=HEAD,
        runtime_env=env,
    )
    return actor.remote()


def _limiter(ray: Any, shared: Shared, env: dict[str, Any]) -> Any:
    """The batch's limiter for this run (it ends with the driver: a rerun starts afresh)."""
    actor = ray.remote(ClusterLimiter).options(
        name=f"moot-limiter-{shared.batch_id}-{uuid.uuid4().hex[:8]}",
        namespace=NAMESPACE,
        num_cpus=0,
        resources=HEAD,
        runtime_env=env,
        max_concurrency=10_000,
    )
    return actor.remote(shared.limits.default, shared.limits.per_provider)


def _errors_to_stderr() -> None:
    """Ray prints the cluster's error reports (a worker that died, a node lost) on the driver's stdout,
    where they would break `--format json`: they go to stderr, where diagnostics belong."""
    worker = sys.modules.get("ray._private.worker")
    show = getattr(worker, "print_to_stdstream", None)
    if show is None or getattr(show, "moot_stderr", False):
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        show({**data, "is_err": True} if data.get("pid") == "raylet" else data, ignore_prefix)

    to_stderr.moot_stderr = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = to_stderr  # type: ignore[union-attr]


def _ray() -> Any:
    import ray

    return ray
