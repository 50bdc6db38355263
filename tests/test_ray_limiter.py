"""The cluster limiter's protocol, in one process: `ClusterLimiter` (the actor's body) and several workers'
`LeasedLimits`, with Ray's transport replaced by calls on the same event loop (a method's `.remote(...)`
starts it as a task, as an async actor would). The real thing, over Ray, is in test_batch_ray_cluster.py.

What is pinned: the limit holds across workers; under a loose limit a busy worker sends the limiter few
messages per call (leases); a worker that vanishes gives its slots back; a Retry-After reaches everyone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from moot.batch import ray_limiter
from moot.batch.ray_leases import LeasedLimits
from moot.batch.ray_limiter import ClusterLimiter
from moot.engine.limits import ProviderLimit


class Handle:
    """An actor handle for an object in this event loop: `handle.method.remote(*args)` runs the method as a
    task and gives it back to await (or to drop, as fire-and-forget calls are)."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def __getattr__(self, name: str) -> Any:
        method: Callable[..., Awaitable[Any]] = getattr(self.target, name)

        class Remote:
            @staticmethod
            def remote(*args: Any) -> asyncio.Task[Any]:
                return asyncio.get_running_loop().create_task(method(*args))  # type: ignore[arg-type]

        return Remote


class Meter:
    def __init__(self) -> None:
        self.now = self.most = 0

    async def call(self, limits: LeasedLimits, seconds: float, provider: str = "p") -> None:
        async with limits.slot(provider):
            self.now += 1
            self.most = max(self.most, self.now)
            await asyncio.sleep(seconds)
            self.now -= 1


def _workers(limiter: ClusterLimiter, n: int, limit: ProviderLimit) -> list[LeasedLimits]:
    return [LeasedLimits(None, {"p": limit}, Handle(limiter)) for _ in range(n)]


async def _close(workers: list[LeasedLimits]) -> None:
    for w in workers:
        await w.aclose()


def test_a_tight_limit_holds_across_workers_and_serves_them_all() -> None:
    limit = ProviderLimit(concurrency=2)
    limiter = ClusterLimiter(None, {"p": limit})
    meter = Meter()
    done: list[int] = []

    async def worker(w: LeasedLimits, i: int) -> None:
        async def one() -> None:
            await meter.call(w, 0.01)
            done.append(i)

        await asyncio.gather(*(one() for _ in range(10)))

    async def go() -> None:
        workers = _workers(limiter, 3, limit)
        await asyncio.wait_for(asyncio.gather(*(worker(w, i) for i, w in enumerate(workers))), 30)
        await _close(workers)

    asyncio.run(go())
    assert meter.most == 2 and sorted(set(done)) == [0, 1, 2] and len(done) == 30
    assert limiter.providers["p"].leased == 0  # every slot came back


def test_a_loose_limit_costs_few_messages_per_call() -> None:
    limit = ProviderLimit(concurrency=64)
    limiter = ClusterLimiter(None, {"p": limit})
    meter = Meter()
    calls = 3 * 8 * 25

    async def go() -> None:
        workers = _workers(limiter, 3, limit)

        async def debates(w: LeasedLimits) -> None:
            async def debate() -> None:
                for _ in range(25):  # one call after another, eight debates at once per worker
                    await meter.call(w, 0.001)

            await asyncio.gather(*(debate() for _ in range(8)))

        await asyncio.gather(*(debates(w) for w in workers))
        await _close(workers)

    asyncio.run(go())
    sent = limiter.messages["acquire"] + limiter.messages["release"]
    assert meter.most <= 24
    assert sent / calls < 0.1, limiter.messages  # leases: a slot serves call after call with no message


def test_a_vanished_worker_s_slots_come_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ray_limiter, "HOLDER_TERM_S", 0.5)
    monkeypatch.setattr(ray_limiter, "TICK_S", 0.1)
    limit = ProviderLimit(concurrency=2)
    limiter = ClusterLimiter(None, {"p": limit})

    async def go() -> float:
        await limiter.acquire("gone", "p", 2, [])  # a worker that took both slots and died
        survivor = LeasedLimits(None, {"p": limit}, Handle(limiter))
        t0 = time.monotonic()
        async with survivor.slot("p"):
            waited = time.monotonic() - t0
        await survivor.aclose()
        return waited

    waited = asyncio.run(go())
    assert 0.4 < waited < 3.0 and "gone" not in limiter.holders


def test_a_retry_after_reaches_every_worker() -> None:
    limit = ProviderLimit(concurrency=8)
    limiter = ClusterLimiter(None, {"p": limit})

    async def go() -> float:
        a, b = _workers(limiter, 2, limit)
        async with a.slot("p"), b.slot("p"):  # both hold slots and watch
            pass
        await asyncio.sleep(0.05)
        a.pause("p", 0.5)  # a's vendor said 429, Retry-After: 0.5
        await asyncio.sleep(0.05)
        t0 = time.monotonic()
        async with b.slot("p"):  # b reuses a slot it holds: no message, but the pause reached it
            waited = time.monotonic() - t0
        await _close([a, b])
        return waited

    assert 0.35 < asyncio.run(go()) < 2.0


def test_under_rpm_every_worker_takes_its_place_in_one_bucket() -> None:
    limit = ProviderLimit(concurrency=8, rpm=600, burst=1)  # one request every 0.1 s, cluster-wide
    limiter = ClusterLimiter(None, {"p": limit})
    sent: list[float] = []

    async def go() -> None:
        workers = _workers(limiter, 3, limit)

        async def one(w: LeasedLimits) -> None:
            async with w.slot("p"):
                sent.append(time.monotonic())

        await asyncio.gather(*(one(w) for w in workers for _ in range(3)))
        await _close(workers)

    asyncio.run(go())
    gaps = [b - a for a, b in zip(sorted(sent), sorted(sent)[1:], strict=False)]
    assert len(sent) == 9 and min(gaps) > 0.07, gaps
