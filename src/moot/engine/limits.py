"""Per-provider concurrency and requests-per-minute limits, so that a wide panel or a batch of debates
does not trip a vendor's rate limits. One `Limits` is shared by every call of an engine."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ProviderLimit:
    concurrency: int = 8
    rpm: float | None = None  # requests per minute; None: unlimited


@dataclass
class Limits:
    default: ProviderLimit = field(default_factory=ProviderLimit)
    per_provider: dict[str, ProviderLimit] = field(default_factory=dict)
    _sems: dict[str, asyncio.Semaphore] = field(default_factory=dict, init=False)
    _next_slot: dict[str, float] = field(default_factory=dict, init=False)
    _slot_lock: dict[str, asyncio.Lock] = field(default_factory=dict, init=False)

    def limit_for(self, provider: str) -> ProviderLimit:
        return self.per_provider.get(provider, self.default)

    async def _wait_rpm(self, provider: str, rpm: float) -> None:
        lock = self._slot_lock.setdefault(provider, asyncio.Lock())
        async with lock:
            now = time.monotonic()
            slot = max(now, self._next_slot.get(provider, now))
            self._next_slot[provider] = slot + 60.0 / rpm
        if slot > now:
            await asyncio.sleep(slot - now)

    @asynccontextmanager
    async def slot(self, provider: str) -> AsyncIterator[None]:
        limit = self.limit_for(provider)
        sem = self._sems.setdefault(provider, asyncio.Semaphore(max(1, limit.concurrency)))
        async with sem:
            if limit.rpm:
                await self._wait_rpm(provider, limit.rpm)
            yield
