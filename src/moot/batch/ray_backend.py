"""`--backend ray`: a batch's items as Ray tasks, several debates per task, on an existing cluster
(`--ray-address`, or `RAY_ADDRESS`) or on a local Ray that the batch starts and stops.

The driver prepares each debate (its inputs read and checked here, its share of `--max-cost` reserved)
and sends its stored request; a task runs its chunk of debates concurrently in a store of its own and
returns each debate's records, which the driver imports into the batch's store before writing the
item's line. So a batch run on Ray resumes exactly like a local one. Debates a task had not returned when
the batch was stopped are run again (their calls never reached the batch's store).

Workers need moot importable (the driver passes its PYTHONPATH) and their own vendor keys: the stored
requests carry none, and the driver's environment is not sent (only MOOT_HOME, MOOT_JUDGES and
PYTHONPATH); a judges file's literal `api_key` does travel with the file. Rate limits (`limits:`) apply
per task. Ray is imported only here.

A cluster named by host and port is knocked on (one TCP connection) before `ray.init`: Ray itself retries an
unreachable address for minutes and then signals its own process, which would end the batch as interrupted.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from moot.batch.debates import Ended, Outcome, Ready, Shared, Started, Work, close_judges, mark_running, prepare
from moot.batch.ray_worker import Unit, UnitResult, run_units
from moot.errors import MissingExtra, UsageError
from moot.runs import storable
from moot.store import batches
from moot.store.transfer import export_debate, import_debate

CHUNK_MOST = 8  # debates per task: enough to hide a task's start-up, few enough to spread over a cluster
WORKER_ENV = ("MOOT_HOME", "MOOT_JUDGES")
REACH_TIMEOUT = 3.0  # seconds to open a TCP connection to the cluster's address before giving up


def chunk_size(concurrency: int) -> int:
    """At least two tasks in flight when the batch may run two debates at once."""
    return max(1, min(CHUNK_MOST, concurrency // 2))


def worker_env() -> dict[str, str]:
    """What the workers must see of the driver's environment: moot's home and where moot is imported from."""
    env = {k: os.environ[k] for k in WORKER_ENV if os.environ.get(k)}
    source = str(Path(__file__).resolve().parents[2])  # the folder holding the `moot` package
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH", "")) if p)
    return env


class RayBackend:
    live_spend = False  # spend reaches the batch's store when a task returns, not call by call

    def __init__(self, concurrency: int, address: str | None) -> None:
        if importlib.util.find_spec("ray") is None:
            raise MissingExtra("ray", "ray")
        self.size = chunk_size(concurrency)
        self.tasks = max(1, concurrency // self.size)
        self.address = address
        if not _ray_running():  # a Ray the caller started is used as it is, whatever the address says
            check_reachable(address or os.environ.get("RAY_ADDRESS") or "")

    async def run(self, works: Sequence[Work], shared: Shared, started: Started, ended: Ended) -> None:
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
        """Join the cluster at `address` (or RAY_ADDRESS), else start a local Ray for this batch."""
        try:
            await asyncio.to_thread(
                ray.init, address=self.address, include_dashboard=False, logging_level="WARNING", log_to_driver=False
            )
        except (ConnectionError, RuntimeError, ValueError) as e:
            where = self.address or os.environ.get("RAY_ADDRESS") or "a local Ray"
            raise UsageError(f"cannot start or reach Ray ({where}): {' '.join(str(e).split())[:200]}") from None

    async def _drive(self, ray: Any, works: Sequence[Work], shared: Shared, started: Started, ended: Ended) -> None:
        task = ray.remote(run_units).options(runtime_env={"env_vars": worker_env()}, max_retries=0)
        limits = (shared.limits.default, shared.limits.per_provider)
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
                    ready, _ = await asyncio.to_thread(ray.wait, list(flying), num_returns=1)
                    for ref in ready:
                        await self._land(ray, ref, flying.pop(ref), shared, by_id, ended)
        except BaseException:
            for ref in flying:
                ray.cancel(ref, force=True)
            raise

    async def _units(self, chunk: list[Work], shared: Shared, started: Started, ended: Ended) -> list[Unit]:
        """The chunk's debates prepared here (an item that cannot start ends here), as units for a task."""
        units = []
        for work in chunk:
            started(work)
            ready = await prepare(work, shared)
            if isinstance(ready, Outcome):
                ended(ready)
                continue
            units.append(_unit(ready, shared))
            await close_judges(ready.prepared)  # the worker builds its own
            mark_running(work, shared)
        return units

    async def _land(
        self, ray: Any, ref: Any, units: list[Unit], shared: Shared, by_id: dict[str, Work], ended: Ended
    ) -> None:
        """A task's debates into the batch's store, then each item's outcome."""
        try:
            results: list[UnitResult] = await asyncio.to_thread(ray.get, ref)
        except Exception as e:  # the task itself failed (a worker lost, moot not importable there)
            results = [UnitResult(u.item_id, u.debate_id, "failed", None, f"Ray task failed: {e}", None) for u in units]
        for r in results:
            if r.export is not None:
                import_debate(shared.store, r.export)
            if shared.cap is not None:
                await shared.cap.release(r.debate_id, batches.debate_cost(shared.store, r.debate_id))
            work = by_id[r.item_id]
            in_store = r.export is not None or work.resume
            ended(Outcome(work.item, r.debate_id if in_store else None, r.status, r.result, r.error))


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


def _ray() -> Any:
    import ray

    return ray
