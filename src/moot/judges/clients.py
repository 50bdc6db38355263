"""Vendor SDK clients shared by every judge of the process that reaches the same endpoint.

A batch of 300 debates of three judges would otherwise build 900 clients, each with its own connection
pool: CPU to build them, memory to hold them, and a new connection (a TLS handshake, on a vendor's cloud)
for every judge. Judges that reach the same endpoint with the same key and client options share clients
instead, a few dozen judges to a client (see `JUDGES_PER_CLIENT`). A client is closed when the last judge
using it closes, or by `close_shared_clients()` (at the end of a batch): a judge closing never closes a
client that another judge is still using.

A client's connections belong to the event loop that opened them, so clients are shared within one event
loop; a judge asking outside a running loop gets a client of its own. The pool is keyed by a digest of
the API key, never the key itself, so that nothing listing the pool can show one.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

Closer = Callable[[Any], Awaitable[None]]

# Judges per client. An httpx connection pool walks all of its connections and requests whenever a request
# starts or ends, so one client carrying hundreds of concurrent calls costs more CPU per call than hundreds
# of clients do (300 debates at once on one client: +40% CPU per debate). A judge has at most one call in
# flight, so a few dozen judges per client keep each pool small, and the clients few.
JUDGES_PER_CLIENT = 32


@dataclass(eq=False)
class Lease:
    """A client and the judges using it."""

    client: Any
    key: tuple[Hashable, ...] | None  # (event loop, endpoint); None: a judge's own client, outside the pool
    close: Closer
    loop: weakref.ref[asyncio.AbstractEventLoop] | None = None
    users: int = 0
    closed: bool = False

    def owner(self) -> asyncio.AbstractEventLoop | None:
        return self.loop() if self.loop is not None else None

    def stale(self) -> bool:
        """Whether this shared client belongs to another event loop than the running one (a judge used
        again under a new `asyncio.run`): its connections cannot serve this loop."""
        if self.key is None:
            return False
        try:
            return self.owner() is not asyncio.get_running_loop()
        except RuntimeError:
            return False


_POOL: dict[tuple[Hashable, ...], list[Lease]] = {}  # (event loop, endpoint) -> its clients


def endpoint(wire: str, base_url: str | None, api_key: str | None, *options: Hashable) -> tuple[Hashable, ...]:
    """What makes two clients interchangeable: the wire, the address, the key (as a digest), the options."""
    digest = hashlib.sha256(api_key.encode()).hexdigest() if api_key else ""
    return (wire, base_url, digest, *options)


def lease(key: tuple[Hashable, ...], make: Callable[[], Any], close: Closer) -> Lease:
    """A client for `key` in the running event loop: the endpoint's least used one, or a new one when every
    client of the endpoint already serves `JUDGES_PER_CLIENT` judges. `make` builds one, `close` closes it."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return Lease(make(), None, close, users=1)
    pooled = (id(loop), *key)
    clients = [c for c in _POOL.get(pooled, []) if not c.closed and c.owner() is loop]
    held = min(clients, key=lambda c: c.users, default=None)
    if held is None or held.users >= JUDGES_PER_CLIENT:
        held = Lease(make(), pooled, close, weakref.ref(loop))
        clients.append(held)
    _POOL[pooled] = clients
    held.users += 1
    return held


async def release(held: Lease) -> None:
    """A judge is done with its client: the client closes when no other judge uses it any more."""
    held.users -= 1
    if held.users > 0 or held.closed:
        return
    if held.key is not None:
        clients = _POOL.get(held.key, [])
        if held in clients:
            clients.remove(held)
        if not clients:
            _POOL.pop(held.key, None)
    await _close(held)


def abandon(held: Lease) -> None:
    """Let go of a stale lease without closing its client here (only its own event loop could): the
    client is dropped from the pool when no judge uses it any more."""
    held.users -= 1
    if held.users > 0 or held.key is None:
        return
    held.closed = True
    clients = _POOL.get(held.key, [])
    if held in clients:
        clients.remove(held)
    if not clients:
        _POOL.pop(held.key, None)


async def close_shared_clients() -> None:
    """Close every shared client of the running event loop (the end of a batch), whoever still holds one;
    a judge that closes afterwards has nothing left to close. Clients of event loops that are gone are
    dropped (their connections went with their loop)."""
    loop = asyncio.get_running_loop()
    for key, clients in list(_POOL.items()):
        if not {c.owner() for c in clients} <= {loop, None}:
            continue  # another running event loop's
        del _POOL[key]
        for held in clients:
            if held.owner() is loop:
                await _close(held)


def shared_count() -> int:
    """How many shared clients are open (for tests and benchmarks)."""
    return sum(len(clients) for clients in _POOL.values())


async def _close(held: Lease) -> None:
    if held.closed:
        return
    held.closed = True
    owner = held.owner()
    if held.key is None or owner is asyncio.get_running_loop():
        await held.close(held.client)
    # else: its connections belong to another event loop, which alone could close them
