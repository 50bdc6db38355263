"""Per-provider concurrency and requests-per-minute limits, so that a wide panel or a batch of debates
does not trip a vendor's rate limits. One `Limits` is shared by every call of an engine.

A provider's limit is, in order: the judges file's `limits: {PROVIDER: ...}`, its `limits: {default: ...}`,
the provider table's defaults (entry-tier vendor limits; one or two at a time for local servers), and
finally `ProviderLimit()`. Requests per minute are a token bucket (GCRA): up to `burst` requests go at
once, so that the judges of one round still run concurrently, and beyond that one every 60/rpm seconds,
rather than a larger burst that the vendor would answer with 429s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from moot.judges.providers import PROVIDERS


@dataclass(frozen=True)
class ProviderLimit:
    concurrency: int = 16
    rpm: float | None = None  # requests per minute; None: unlimited
    burst: int | None = None  # requests sent at once before rpm spacing applies; default rpm/10, <= concurrency

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.rpm is not None and self.rpm <= 0:
            raise ValueError("rpm must be a positive number of requests per minute")
        if self.burst is not None and self.burst < 1:
            raise ValueError("burst must be at least 1")

    @property
    def bucket(self) -> int:
        if self.burst is not None:
            return self.burst
        return max(1, min(self.concurrency, int((self.rpm or 0) / 10)))


@dataclass
class Limits:
    default: ProviderLimit | None = None  # the user's default for every provider, over the table's
    per_provider: dict[str, ProviderLimit] = field(default_factory=dict)
    _sems: dict[str, asyncio.Semaphore] = field(default_factory=dict, init=False)
    _tat: dict[str, float] = field(default_factory=dict, init=False)  # GCRA theoretical arrival time
    _slot_lock: dict[str, asyncio.Lock] = field(default_factory=dict, init=False)

    def limit_for(self, provider: str) -> ProviderLimit:
        if provider in self.per_provider:
            return self.per_provider[provider]
        if self.default is not None:
            return self.default
        known = PROVIDERS.get(provider)
        if known is not None:
            return ProviderLimit(concurrency=known.concurrency, rpm=known.rpm, burst=known.burst)
        return ProviderLimit()

    async def _wait_rpm(self, provider: str, limit: ProviderLimit) -> None:
        interval = 60.0 / (limit.rpm or 1)
        tolerance = (limit.bucket - 1) * interval
        lock = self._slot_lock.setdefault(provider, asyncio.Lock())
        async with lock:
            now = time.monotonic()
            tat = max(self._tat.get(provider, now), now)
            send_at = max(now, tat - tolerance)
            self._tat[provider] = max(tat, send_at) + interval
        if send_at > now:
            await asyncio.sleep(send_at - now)

    @asynccontextmanager
    async def slot(self, provider: str) -> AsyncIterator[None]:
        limit = self.limit_for(provider)
        sem = self._sems.setdefault(provider, asyncio.Semaphore(limit.concurrency))
        async with sem:
            if limit.rpm:
                await self._wait_rpm(provider, limit)
            yield
