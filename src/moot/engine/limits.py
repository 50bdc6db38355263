"""Per-provider limits (concurrent calls, requests and tokens per minute, a vendor's Retry-After), so that
a wide panel or a batch of debates does not trip a vendor's rate limits.

One `Limits` is one limiter per provider for every call that goes through it: every call of an engine,
and every debate of a batch that shares it. The judges file's `limits:` block gives one `Limits` per
process for each distinct block (`moot.engine.settings.limits`), so that all the debates of a batch
share their providers' limits whichever way they are started.

A provider's limit is, in order: the judges file's `limits: {PROVIDER: ...}`, its `limits: {default: ...}`,
the provider table's defaults (entry-tier vendor limits; one or two at a time for local servers), and
finally `ProviderLimit()`. Requests per minute are a token bucket (GCRA): up to `burst` requests go at
once, so that the judges of one round still run concurrently, and beyond that one every 60/rpm seconds,
rather than a larger burst that the vendor would answer with 429s. Tokens per minute are a second bucket,
a minute's worth deep, charged with each call's estimate before it is sent (its prompt at four characters
a token, plus its output bound). A Retry-After that one call receives holds back every call to that
provider until it has passed, instead of each of them hitting the same wall in turn.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from moot.engine.server_queue import ServerQueues
from moot.judges.providers import PROVIDERS


@dataclass(frozen=True)
class ProviderLimit:
    concurrency: int = 16
    rpm: float | None = None  # requests per minute; None: unlimited
    burst: int | None = None  # requests sent at once before rpm spacing applies; default rpm/10, <= concurrency
    tpm: float | None = None  # tokens per minute (prompt estimate + output bound); None: unlimited

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if self.rpm is not None and self.rpm <= 0:
            raise ValueError("rpm must be a positive number of requests per minute")
        if self.burst is not None and self.burst < 1:
            raise ValueError("burst must be at least 1")
        if self.tpm is not None and self.tpm <= 0:
            raise ValueError("tpm must be a positive number of tokens per minute")

    @property
    def bucket(self) -> int:
        if self.burst is not None:
            return self.burst
        return max(1, min(self.concurrency, int((self.rpm or 0) / 10)))


@dataclass
class _Pace:
    """A provider's clocks (plain monotonic times, valid in any event loop)."""

    requests_tat: float = 0.0  # GCRA theoretical arrival time of the next request
    tokens_tat: float = 0.0  # the same, for tokens
    paused_until: float = 0.0  # a Retry-After received by any call


def _send_time(limit: ProviderLimit, pace: _Pace, tokens: int, now: float) -> float:
    """When a call may go, reserving its place in both buckets (pure arithmetic on `pace`, no waiting)."""
    send_at = max(now, pace.paused_until)
    if limit.rpm:
        interval = 60.0 / limit.rpm
        tat = max(pace.requests_tat, now)
        send_at = max(send_at, tat - (limit.bucket - 1) * interval)
    if limit.tpm:
        cost = min(max(tokens, 0), limit.tpm) * 60.0 / limit.tpm  # a call over a minute's worth waits for a full bucket
        tokens_tat = max(pace.tokens_tat, now)
        send_at = max(send_at, tokens_tat + cost - 60.0)
        pace.tokens_tat = max(tokens_tat, send_at) + cost
    if limit.rpm:
        pace.requests_tat = max(max(pace.requests_tat, now), send_at) + 60.0 / limit.rpm
    return send_at


async def _sleep_until(when: float) -> None:
    delay = when - time.monotonic()
    if delay > 0:
        await asyncio.sleep(delay)


@dataclass
class Limits:
    default: ProviderLimit | None = None  # the user's default for every provider, over the table's
    per_provider: dict[str, ProviderLimit] = field(default_factory=dict)
    # the calls in flight to each server on this machine: a judge's timeout there starts when its turn does
    queues: ServerQueues = field(default_factory=ServerQueues, init=False, repr=False)
    _pace: dict[str, _Pace] = field(default_factory=dict, init=False, repr=False)
    # a semaphore waits on its event loop's futures: one per provider and loop (asyncio.run twice in a process)
    _sems: dict[str, tuple[weakref.ref[asyncio.AbstractEventLoop], asyncio.Semaphore]] = field(
        default_factory=dict, init=False, repr=False
    )

    def limit_for(self, provider: str) -> ProviderLimit:
        if provider in self.per_provider:
            return self.per_provider[provider]
        if self.default is not None:
            return self.default
        known = PROVIDERS.get(provider)
        if known is not None:
            return ProviderLimit(concurrency=known.concurrency, rpm=known.rpm, burst=known.burst)
        return ProviderLimit()

    def pause(self, provider: str, seconds: float) -> None:
        """A vendor said to wait (Retry-After): no call to `provider` is sent before then."""
        pace = self._pace.setdefault(provider, _Pace())
        pace.paused_until = max(pace.paused_until, time.monotonic() + max(0.0, seconds))

    def _semaphore(self, provider: str, limit: ProviderLimit) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        held = self._sems.get(provider)
        if held is None or held[0]() is not loop:
            held = (weakref.ref(loop), asyncio.Semaphore(limit.concurrency))
            self._sems[provider] = held
        return held[1]

    async def _paced(self, provider: str, limit: ProviderLimit, tokens: int) -> None:
        pace = self._pace.setdefault(provider, _Pace())
        await _sleep_until(_send_time(limit, pace, tokens, time.monotonic()))
        await _sleep_until(pace.paused_until)  # a Retry-After that came while this call waited its turn

    @asynccontextmanager
    async def slot(self, provider: str, tokens: int = 0) -> AsyncIterator[None]:
        """Hold one of `provider`'s concurrent calls, once its request and token buckets allow it to go.
        `tokens` is the call's estimate (counted only under a `tpm` limit)."""
        limit = self.limit_for(provider)
        async with self._semaphore(provider, limit):
            await self._paced(provider, limit, tokens)
            yield
