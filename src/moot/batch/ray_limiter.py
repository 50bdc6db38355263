"""One rate limiter for a whole Ray cluster: the body of the Ray actor that holds each provider's limits
(concurrent calls, requests and tokens per minute, a 429's Retry-After) once for every worker of a batch.

The same rules as the in-process limiter (`moot.engine.limits`), with its arithmetic (`_send_time`), kept
in one place; workers reach it through `moot.batch.ray_leases.LeasedLimits`. What keeps it cheap:

- Slots are leased, several at a time. A worker asks once for as many slots as it has calls waiting (at
  most `LEASE_MOST`) and gets as many as are free; while nobody else waits, it hands a slot that a call
  gives back to its own next call, with no message at all. So under a loose limit a busy worker exchanges
  messages with the limiter only when its demand grows, not per call.
- When another worker has to queue here, every holder is told (its watch returns) and from then on gives
  slots back as its calls end, so that queued workers are served in turn (first come, first served).
- Under a requests- or tokens-per-minute limit each call needs its place in the bucket: the places of
  all the calls a worker has waiting are reserved in one message, and the slot goes back with the call.
- A Retry-After pauses the provider here and is pushed to every holder through its watch: one standing
  message per worker (which is also its heartbeat), not one per call.
- A holder not heard from for `HOLDER_TERM_S` (its worker died, its node was removed) loses its slots.

Plain Python: the backend makes it an actor (`ray.remote`), so nothing here imports Ray.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter, deque
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from moot.engine.limits import Limits, ProviderLimit, _Pace, _send_time

LEASE_MOST = 8  # slots one request may take at once
HOLDER_TERM_S = 10.0  # a holder silent this long (no watch, no request) is gone: its slots come back
CALM_S = 2.0  # a provider stays contended this long after the last worker had to queue for it
WATCH_S = 3.0  # the longest a watch waits before it reports anyway (a holder's heartbeat)
TICK_S = 0.5  # how often departed holders and ended contention are looked for


@dataclass
class _Ask:
    holder: str
    want: int
    future: asyncio.Future[int]


@dataclass
class _Provider:
    limit: ProviderLimit
    leased: int = 0
    queue: deque[_Ask] = field(default_factory=deque)
    pace: _Pace = field(default_factory=_Pace)
    contended_at: float = float("-inf")  # the last time a worker had to queue
    contended: bool = False  # as last announced to the watchers

    @property
    def free(self) -> int:
        return self.limit.concurrency - self.leased

    @property
    def paced(self) -> bool:
        return bool(self.limit.rpm or self.limit.tpm)


@dataclass
class _Holder:
    seen: float
    leases: Counter[str] = field(default_factory=Counter)


class ClusterLimiter:
    """Every provider's limits for one batch, for all its workers (an async Ray actor)."""

    def __init__(self, default: ProviderLimit | None, per_provider: dict[str, ProviderLimit]) -> None:
        self.limits = Limits(default=default, per_provider=dict(per_provider))
        self.providers: dict[str, _Provider] = {}
        self.holders: dict[str, _Holder] = {}
        self.epoch = 0
        self.messages: Counter[str] = Counter()  # requests received, by kind (for the benchmark)
        self.most_leased: Counter[str] = Counter()
        self._changed: asyncio.Event | None = None
        self._ticker: asyncio.Task[None] | None = None

    # what workers ask

    async def acquire(self, holder: str, provider: str, want: int, tokens: list[int]) -> dict[str, Any]:
        """Up to `want` slots of `provider` (at least one, waiting in line for it), and for a paced provider
        how long each of the calls (`tokens`: their estimates) must wait before it is sent."""
        self._touch(holder)
        self.messages["acquire"] += 1
        p = self._provider(provider)
        want = max(1, min(want, LEASE_MOST, p.limit.concurrency))
        if p.queue or p.free < 1:
            n = await self._queue(holder, p, want)
        else:
            n = self._lease(holder, provider, p, want)
        return self._grant(p, n, tokens)

    async def pace(self, provider: str, tokens: list[int]) -> list[float]:
        """Places in the buckets for calls that already hold a slot: each one's wait, in seconds."""
        self.messages["pace"] += 1
        return self._waits(self._provider(provider), tokens)

    async def release(self, holder: str, provider: str, n: int) -> None:
        self._touch(holder)
        self.messages["release"] += 1
        self._give_back(holder, provider, n)

    async def pause(self, provider: str, seconds: float) -> None:
        """A vendor's Retry-After: no worker sends to `provider` before it has passed."""
        self.messages["pause"] += 1
        p = self._provider(provider)
        p.pace.paused_until = max(p.pace.paused_until, time.monotonic() + max(0.0, seconds))
        self._announce()

    async def watch(self, holder: str, epoch: int) -> dict[str, Any]:
        """Returns when a pause or contention changes after `epoch` (or after `WATCH_S`): every provider's
        remaining pause and whether workers are queueing for it. Also the holder's heartbeat."""
        self._touch(holder)
        self.messages["watch"] += 1
        if epoch == self.epoch:
            changed = self._event()
            with suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), WATCH_S)
            self._touch(holder)
        now = time.monotonic()
        state = {
            name: {"pause": max(0.0, p.pace.paused_until - now), "contended": p.contended}
            for name, p in self.providers.items()
        }
        return {"epoch": self.epoch, "providers": state}

    async def drop(self, holder: str) -> None:
        """The holder is done (its task ended): every slot it holds comes back."""
        self.messages["drop"] += 1
        gone = self.holders.pop(holder, None)
        if gone is not None:
            for provider, n in gone.leases.items():
                self._free(provider, n)

    async def stats(self) -> dict[str, Any]:
        """Messages received by kind, the most slots leased at once per provider, holders alive."""
        return {"messages": dict(self.messages), "most_leased": dict(self.most_leased), "holders": len(self.holders)}

    # leases

    def _provider(self, name: str) -> _Provider:
        if self._ticker is None:
            self._ticker = asyncio.get_running_loop().create_task(self._tick())
        p = self.providers.get(name)
        if p is None:
            p = self.providers[name] = _Provider(self.limits.limit_for(name))
        return p

    def _lease(self, holder: str, provider: str, p: _Provider, want: int) -> int:
        n = min(want, p.free)
        p.leased += n
        self.most_leased[provider] = max(self.most_leased[provider], p.leased)
        self._holder(holder).leases[provider] += n
        return n

    async def _queue(self, holder: str, p: _Provider, want: int) -> int:
        ask = _Ask(holder, want, asyncio.get_running_loop().create_future())
        p.queue.append(ask)
        p.contended_at = time.monotonic()
        if not p.contended:
            p.contended = True
            self._announce()
        return await ask.future

    def _give_back(self, holder: str, provider: str, n: int) -> None:
        held = self.holders.get(holder)
        if held is None:  # already dropped (its slots came back then)
            return
        n = min(n, held.leases[provider])
        held.leases[provider] -= n
        self._free(provider, n)

    def _free(self, provider: str, n: int) -> None:
        p = self._provider(provider)
        p.leased = max(0, p.leased - n)
        while p.queue and p.free >= 1:
            ask = p.queue.popleft()
            if not ask.future.done():
                ask.future.set_result(self._lease(ask.holder, provider, p, ask.want))

    def _grant(self, p: _Provider, n: int, tokens: list[int]) -> dict[str, Any]:
        now = time.monotonic()
        waits = self._waits(p, tokens[:n] + [0] * (n - len(tokens))) if p.paced else []
        return {"n": n, "waits": waits, "pause": max(0.0, p.pace.paused_until - now), "contended": p.contended}

    @staticmethod
    def _waits(p: _Provider, tokens: list[int]) -> list[float]:
        now = time.monotonic()
        return [max(0.0, _send_time(p.limit, p.pace, t, now) - now) for t in tokens]

    # holders, contention and watchers

    def _holder(self, holder: str) -> _Holder:
        h = self.holders.get(holder)
        if h is None:
            h = self.holders[holder] = _Holder(time.monotonic())
        return h

    def _touch(self, holder: str) -> None:
        self._holder(holder).seen = time.monotonic()

    def _event(self) -> asyncio.Event:
        if self._changed is None:
            self._changed = asyncio.Event()
        return self._changed

    def _announce(self) -> None:
        """Wake every watch: something a holder acts on has changed."""
        self.epoch += 1
        changed, self._changed = self._event(), asyncio.Event()
        changed.set()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            now = time.monotonic()
            for name, h in list(self.holders.items()):
                if now - h.seen > HOLDER_TERM_S:
                    await self.drop(name)
            calm = [p for p in self.providers.values() if p.contended and not p.queue and now - p.contended_at > CALM_S]
            for p in calm:
                p.contended = False
            if calm:
                self._announce()
