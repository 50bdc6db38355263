"""A judge's timeout on a server on this machine counts from when its request can start there.

A local model server (llama.cpp, llama-cpp-python, Ollama, LM Studio) answers one request at a time, or a
few: the judges of a round that share it are all sent at once, and the server queues them. A judge's
`timeout` is how long its own reply may take; on a one-slot server the third judge's request waits for the
first two, so a clock started when it was sent would time it out for the queue, not for its reply (three
seats on one small model, `timeout: 120` as the README writes it, ended in exit 3).

So, for a server on this machine (`is_loopback`), the calls in flight to it are kept in the order they were
sent, and a call's clock starts once every call sent to the same server before it is done: for a one-slot
server, exactly when the server takes it up. The calls still go at once (a server with several slots answers
them side by side, and nothing waits longer than it would have), and a vendor's cloud is not concerned. The
vendor SDK's own bound, which cannot be moved once sent, is the latest the reply can be due: the calls ahead
of it at their latest, plus its own timeout.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from moot.judges.base import Judge
from moot.judges.providers import is_loopback
from moot.schemas.messages import Completion, Prompt


@dataclass
class _InFlight:
    done: asyncio.Event
    latest_end: float  # time.monotonic() by which this call has ended, at the latest


@dataclass
class ServerQueues:
    """The calls in flight to each server on this machine, oldest first (one list per event loop)."""

    _queues: dict[str, tuple[weakref.ref[asyncio.AbstractEventLoop], list[_InFlight]]] = field(default_factory=dict)

    def _queue(self, server: str) -> list[_InFlight]:
        loop = asyncio.get_running_loop()
        held = self._queues.get(server)
        if held is None or held[0]() is not loop:
            held = (weakref.ref(loop), [])
            self._queues[server] = held
        return held[1]

    @asynccontextmanager
    async def joined(self, server: str, timeout: float) -> AsyncIterator[tuple[list[asyncio.Event], float]]:
        """Join `server`'s queue for one call: the calls ahead of it (their done events), and the longest
        this call can take from now (the bound to give the SDK)."""
        queue = self._queue(server)
        ahead = [c for c in queue if not c.done.is_set()]
        now = time.monotonic()
        me = _InFlight(asyncio.Event(), max([now, *(c.latest_end for c in ahead)]) + timeout)
        queue.append(me)
        try:
            yield [c.done for c in ahead], me.latest_end - now
        finally:
            me.done.set()
            queue.remove(me)


def local_server(judge: Judge) -> str | None:
    """The judge's server when it runs on this machine, else None."""
    base = getattr(judge, "base_url", None)
    return base.rstrip("/") if isinstance(base, str) and is_loopback(base) else None


async def _start_clock(clock: asyncio.Timeout, ahead: list[asyncio.Event], timeout: float, last: float | None) -> None:
    for event in ahead:
        await event.wait()
    when = asyncio.get_running_loop().time() + timeout
    clock.reschedule(when if last is None else min(when, last))


async def timed_call(
    queues: ServerQueues, judge: Judge, prompt: Prompt, timeout: float, deadline: float | None = None
) -> Completion:
    """The judge's reply to `prompt` within `timeout` (TimeoutError when it runs out); for a judge on a server
    of this machine, counted from when the calls sent there before it are done, and never past `deadline`
    (the debate's own, time.monotonic())."""
    server = local_server(judge)
    if server is None:
        async with asyncio.timeout(timeout):
            return await judge.complete(prompt, timeout=timeout)
    async with queues.joined(server, timeout) as (ahead, bound):
        if not ahead:
            async with asyncio.timeout(timeout):
                return await judge.complete(prompt, timeout=timeout)
        loop = asyncio.get_running_loop()
        last = None if deadline is None else loop.time() + (deadline - time.monotonic())
        async with asyncio.timeout_at(last) as clock:
            starter = asyncio.create_task(_start_clock(clock, ahead, timeout, last))
            try:
                return await judge.complete(prompt, timeout=bound)
            finally:
                starter.cancel()
