"""The life of one debate in the store, shared by every protocol: created (or resumed), running,
then finished, failed or interrupted; or waiting for its host seats' replies (`moot.engine.host`).
Judges' clients are closed whatever happens."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from moot.engine.budget import stored_settings
from moot.engine.core import Engine, EngineOptions
from moot.engine.host import HostReplyRefused, HostWaiting
from moot.errors import DebateAborted
from moot.judges.base import Seat
from moot.judges.factory import require_credentials, seat_judges
from moot.store.db import Store, StoreError
from moot.store.host import clear_requests, save_requests

R = TypeVar("R", bound=BaseModel)


@dataclass
class RunOptions(EngineOptions):
    """How to run a debate, whatever its protocol: where state goes, and the engine's own options (who
    hears progress, call policy, limits, prices, budget)."""

    store: Store | None = None
    debate_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # stored beside the request (the author model)


async def run_debate(
    protocol: str,
    request: BaseModel,
    title: str,
    seats: Sequence[Seat],
    body: Callable[[Engine], Awaitable[R]],
    options: RunOptions,
    *,
    resuming: bool = False,
) -> R:
    require_credentials(seat_judges(seats))  # before the debate exists: a missing key is bad input
    store = options.store or Store.open_default()
    debate_id = options.debate_id or new_debate_id()
    options.debate_id = debate_id  # so that a caller interrupted mid-debate can say what to resume
    if not resuming:
        # the budget and prices go beside the request, so that `moot resume` keeps the cap
        stored = {**storable(request), **stored_settings(options.budget, options.pricing), **options.extra}
        store.create_debate(debate_id, protocol, stored, title=title)
    else:
        store.set_status(debate_id, "running")
    engine = Engine.from_options(store, debate_id, options)
    try:
        result = await body(engine)
        # finished before the judges' clients close: a stop (SIGTERM, Ctrl-C) while they close must not
        # leave a debate whose result is known marked running
        store.set_status(debate_id, "finished", result=result.model_dump(mode="json"))
        clear_requests(store, debate_id)
    except HostWaiting as w:  # host replies are due: the debate waits for them, in the store
        save_requests(store, debate_id, w.requests)
        store.set_status(debate_id, "waiting")
        raise
    except HostReplyRefused as r:  # a host reply that cannot be read: its request stays pending
        save_requests(store, debate_id, r.pending)  # a good reply given beside it is stored, no longer pending
        store.set_status(debate_id, "waiting")
        raise
    except DebateAborted as e:
        store.set_status(debate_id, "failed", error=str(e))
        raise
    except (asyncio.CancelledError, KeyboardInterrupt, StoreError):
        # a store that cannot be written (a full disk, a lock held too long, an I/O error) stops the debate as an
        # interruption: resumable
        mark_interrupted(store, debate_id)
        raise
    except BaseException as e:
        store.set_status(debate_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finally:
        for seat in seats:
            for judge in seat.judges:
                await judge.aclose()
    return result


def mark_interrupted(store: Store, debate_id: str, tries: int = 3) -> None:
    """Say in the store that the debate stopped and how to continue it. The store may be what stopped it (a
    lock another process held too long): the mark is tried again briefly, and a debate it never reaches
    stays `running`, which `moot resume` continues just the same."""
    for attempt in range(tries):
        try:
            store.set_status(debate_id, "interrupted", error="interrupted; continue with: moot resume " + debate_id)
            return
        except StoreError:
            if attempt + 1 < tries:
                time.sleep(0.2 * (attempt + 1))


def new_debate_id() -> str:
    return str(uuid.uuid4())


def storable(request: BaseModel) -> dict[str, Any]:
    """A request as it may be written to the store: every literal API key removed."""
    data = request.model_dump(mode="json")

    def scrub(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (None if k == "api_key" else scrub(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return scrub(data)  # type: ignore[no-any-return]
