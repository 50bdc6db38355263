"""A Ray worker's side of the cluster's limiter (`moot.batch.ray_limiter`): a `Limits` whose slots are
leased from the limiter actor, so that every worker of a batch keeps to one limit per provider.

What one call costs in messages to the limiter:
- concurrency only, nobody queueing: none while this worker already holds a free slot (a slot a call
  gives back goes to this worker's next call); one `acquire` for all the calls waiting when it needs more;
- another worker queueing (the limiter says so in its grants and through the watch): slots go back as
  calls end (one `release` for the slots freed at the same moment), and come again in the next grant;
- under rpm or tpm: the call's place in the buckets comes with its grant, and the slot goes back with it.
A 429's Retry-After is sent to the limiter once and comes back to every worker through its watch.

Plain Python: the actor is reached through its handle (`.remote()` gives an awaitable), nothing imports Ray.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from moot.batch.ray_limiter import LEASE_MOST
from moot.engine.limits import Limits, ProviderLimit


@dataclass
class _Waiter:
    tokens: int
    future: asyncio.Future[float]  # resolved with the wait before sending, once a slot is this call's


@dataclass
class _Local:
    """What this worker holds of one provider."""

    held: int = 0  # slots leased from the limiter
    busy: int = 0  # ... of which calls are using
    waiters: deque[_Waiter] = field(default_factory=deque)
    asking: bool = False  # an `acquire` is on its way
    returning: int = 0  # slots to give back in the next `release`
    contended: bool = False  # another worker is queueing: give slots back as calls end
    paused_until: float = 0.0  # this process's monotonic clock


class LeasedLimits(Limits):
    """The batch's limits, held for the whole cluster by the limiter actor `actor`."""

    def __init__(self, default: ProviderLimit | None, per_provider: dict[str, ProviderLimit], actor: Any) -> None:
        super().__init__(default=default, per_provider=dict(per_provider))
        self.actor = actor
        self.holder = uuid.uuid4().hex
        self._local: dict[str, _Local] = {}
        self._watch: asyncio.Task[None] | None = None

    @asynccontextmanager
    async def slot(self, provider: str, tokens: int = 0) -> AsyncIterator[None]:
        local = self._ensure(provider)
        wait = await self._take(provider, local, tokens)
        try:
            if wait > 0:
                await asyncio.sleep(wait)
            await _unpaused(local)
            yield
        finally:
            self._give(provider, local)

    def pause(self, provider: str, seconds: float) -> None:
        """A Retry-After: this worker waits at once; every other one when the limiter tells it."""
        local = self._ensure(provider)
        local.paused_until = max(local.paused_until, time.monotonic() + max(0.0, seconds))
        self.actor.pause.remote(provider, seconds)

    async def aclose(self) -> None:
        """Give every slot back and stop watching (the end of a task)."""
        if self._watch is not None:
            self._watch.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await self._watch
        with suppress(Exception):  # a limiter gone (its node lost) takes the leases with it
            await self.actor.drop.remote(self.holder)

    # slots

    def _ensure(self, provider: str) -> _Local:
        if self._watch is None:
            self._watch = asyncio.get_running_loop().create_task(self._watching())
        return self._local.setdefault(provider, _Local())

    def _bucketed(self, provider: str) -> bool:
        limit = self.limit_for(provider)
        return bool(limit.rpm or limit.tpm)

    async def _take(self, provider: str, local: _Local, tokens: int) -> float:
        if local.held - local.busy - local.returning > 0 and not local.waiters and not self._bucketed(provider):
            local.busy += 1
            return 0.0
        waiter = _Waiter(tokens, asyncio.get_running_loop().create_future())
        local.waiters.append(waiter)
        if not local.asking:
            local.asking = True
            asyncio.get_running_loop().create_task(self._ask(provider, local))
        try:
            return await waiter.future
        except asyncio.CancelledError:
            if waiter.future.done() and not waiter.future.cancelled():
                self._give(provider, local)  # the slot was granted as the call was cancelled
            raise

    async def _ask(self, provider: str, local: _Local) -> None:
        """Ask for slots while calls wait, as many at once as are waiting."""
        try:
            while local.waiters:
                first = [w for w in local.waiters if not w.future.done()][:LEASE_MOST]
                if not first:
                    local.waiters.clear()
                    break
                grant = await self.actor.acquire.remote(self.holder, provider, len(first), [w.tokens for w in first])
                self._granted(provider, local, grant)
        finally:
            local.asking = False

    def _granted(self, provider: str, local: _Local, grant: dict[str, Any]) -> None:
        local.held += grant["n"]
        local.contended = bool(grant["contended"])
        local.paused_until = max(local.paused_until, time.monotonic() + float(grant["pause"]))
        waits: list[float] = grant["waits"] or [0.0] * grant["n"]
        for wait in waits:
            while local.waiters and local.waiters[0].future.done():
                local.waiters.popleft()
            if not local.waiters:
                local.returning += 1  # granted for a call that went away meanwhile
                continue
            local.busy += 1
            local.waiters.popleft().future.set_result(wait)
        self._flush(provider, local)

    def _give(self, provider: str, local: _Local) -> None:
        """A call is done with its slot: kept for this worker's next call while nobody else waits for the
        provider (and no bucket is involved), else given back to the limiter."""
        local.busy -= 1
        if local.contended or self._bucketed(provider):
            local.returning += 1
            asyncio.get_running_loop().call_soon(self._flush, provider, local)
            return
        live = next((w for w in local.waiters if not w.future.done()), None)
        if live is not None:
            local.waiters.remove(live)
            local.busy += 1
            live.future.set_result(0.0)

    def _flush(self, provider: str, local: _Local) -> None:
        """Slots freed at the same moment go back in one message."""
        n, local.returning = local.returning, 0
        if n > 0:
            local.held -= n
            self.actor.release.remote(self.holder, provider, n)

    async def _watching(self) -> None:
        """Pauses and contention, as the limiter announces them; also this worker's heartbeat."""
        epoch = -1
        while True:
            state = await self.actor.watch.remote(self.holder, epoch)
            epoch = state["epoch"]
            now = time.monotonic()
            for provider, info in state["providers"].items():
                local = self._local.setdefault(provider, _Local())
                local.paused_until = max(local.paused_until, now + float(info["pause"]))
                local.contended = bool(info["contended"])
                idle = local.held - local.busy - local.returning
                if local.contended and idle > 0:  # others queue: slots this worker is not using go back
                    local.returning += idle
                    self._flush(provider, local)


async def _unpaused(local: _Local) -> None:
    """Wait out a Retry-After, here or elsewhere; one that arrives meanwhile lengthens the wait."""
    while (left := local.paused_until - time.monotonic()) > 0:  # noqa: ASYNC110 - a deadline that may move
        await asyncio.sleep(left)
