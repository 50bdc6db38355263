"""One vendor SDK client per endpoint, shared by every judge of the process.

A batch of 300 debates of three judges would otherwise build 900 clients, each with its own connection
pool: CPU to build them, memory to hold them, and a new connection (a TLS handshake, on a vendor's cloud)
for every judge. Judges that reach the same endpoint with the same key and client options share one
client, which is closed when the last judge using it closes, or by `close_shared_clients()` (at the end
of a batch). A judge closing never closes a client that another judge is still using.

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


@dataclass(eq=False)
class Lease:
    """A judge's use of a client: released once, by the judge's `aclose`."""

    client: Any
    key: tuple[Hashable, ...] | None  # None: a client of the judge's own, outside the pool
    close: Closer
    loop: weakref.ref[asyncio.AbstractEventLoop] | None = None
    users: int = 0
    closed: bool = False


_POOL: dict[tuple[Hashable, ...], Lease] = {}


def endpoint(wire: str, base_url: str | None, api_key: str | None, *options: Hashable) -> tuple[Hashable, ...]:
    """What makes two clients interchangeable: the wire, the address, the key (as a digest), the options."""
    digest = hashlib.sha256(api_key.encode()).hexdigest() if api_key else ""
    return (wire, base_url, digest, *options)


def lease(key: tuple[Hashable, ...], make: Callable[[], Any], close: Closer) -> Lease:
    """The shared client for `key` in the running event loop (made now if there is none yet)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return Lease(make(), None, close, users=1)
    held = _POOL.get((id(loop), *key))
    if held is None or held.closed or held.loop is None or held.loop() is not loop:
        held = Lease(make(), (id(loop), *key), close, weakref.ref(loop))
        _POOL[(id(loop), *key)] = held
    held.users += 1
    return held


async def release(held: Lease) -> None:
    """A judge is done with its client: closed when no other judge uses it any more."""
    held.users -= 1
    if held.users > 0 or held.closed:
        return
    if held.key is not None and _POOL.get(held.key) is held:
        del _POOL[held.key]
    await _close(held)


async def close_shared_clients() -> None:
    """Close every shared client of the running event loop (the end of a batch), whoever still holds one;
    a judge that closes afterwards has nothing left to close. Clients of event loops that are gone are
    dropped (their connections went with their loop)."""
    loop = asyncio.get_running_loop()
    for key, held in list(_POOL.items()):
        owner = held.loop() if held.loop is not None else None
        if owner is loop or owner is None:
            del _POOL[key]
            if owner is loop:
                await _close(held)


def shared_count() -> int:
    """How many shared clients are open (for tests and benchmarks)."""
    return len(_POOL)


async def _close(held: Lease) -> None:
    held.closed = True
    loop = held.loop() if held.loop is not None else None
    if held.loop is None or loop is asyncio.get_running_loop():
        await held.close(held.client)
    # else: its connections belong to another event loop, which alone could close them
