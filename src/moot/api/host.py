"""A debate with host seats, driven turn by turn: the caller's replies submitted, the debate cancelled.

`submit_replies` matches each reply to a pending request (by `request_id`, or by `seat`), then continues
the debate as `resume` does: every stored call is replayed, the step's host replies are read by the
protocol's own parser and stored, the debate's other seats are asked, and it goes on to the next step
where host replies are due (the `Waiting` state, returned) or to its end (the protocol's result, as the
one-shot function returns it). A reply that cannot be read is refused with the parser's one-line reason
(`HostReplyRefused`, a UsageError): its request stays pending and nothing already done is lost.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from moot.engine.budget import stored_budget, stored_pricing
from moot.errors import UsageError
from moot.protocol.panel import options_from_panel
from moot.protocol.prepared import restore_redactions, run_prepared
from moot.protocols import entry, spec_for
from moot.schemas.host import Waiting
from moot.secrets import redacting
from moot.store.db import DebateRow, Store
from moot.store.host import clear_requests, pending_requests

ENDED = ("finished", "failed", "cancelled")
MAX_REPLY_BYTES = 4_000_000  # one cap for a host reply, whichever door it comes by (API, MCP, `moot reply`)


def waiting_state(store: Store, row: DebateRow) -> Waiting:
    """The waiting state of a stored debate (its pending requests), as a run returned it."""
    return Waiting(debate_id=row.id, protocol=row.protocol, requests=pending_requests(store, row.id))


def _waiting_row(store: Store, debate_id: str) -> DebateRow:
    row = store.require_debate(debate_id)
    if row.status != "waiting":
        raise UsageError(
            f"debate {row.id} is not waiting for host replies (it is {row.status}): see 'moot show {row.id}'"
        )
    return row


def match_replies(pending: Sequence[Mapping[str, Any]], replies: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each reply's request id: by `request_id`, or by `seat` among the pending requests. A reply for no
    pending request, twice for one, or without text is bad input, named."""
    by_id = {str(r["request_id"]): r for r in pending}
    by_seat = {str(r["seat"]): str(r["request_id"]) for r in pending}
    matched: dict[str, str] = {}
    if not replies:
        raise UsageError("no replies given")
    for n, reply in enumerate(replies, 1):
        if not isinstance(reply, Mapping):
            raise UsageError(f"reply {n}: expected an object with 'seat' (or 'request_id') and 'reply'")
        text = reply.get("reply")
        if not isinstance(text, str) or not text.strip():
            raise UsageError(f"reply {n}: 'reply' must be the reply's text")
        if len(text.encode("utf-8", "replace")) > MAX_REPLY_BYTES:
            raise UsageError(f"reply {n}: over {MAX_REPLY_BYTES:,} bytes, more than any judge reply needs")
        key = _request_id(reply, n, by_id, by_seat)
        if key in matched:
            raise UsageError(f"reply {n}: request {key} is answered twice")
        matched[key] = text
    return matched


def screened_replies(given: Mapping[str, str], pending: Sequence[Mapping[str, Any]], *, redact: bool) -> dict[str, str]:
    """The replies as they may go on into the other judges' prompts: screened for secrets as the debate's
    inputs were (`moot.secrets`), every hit named at once (`SecretFound`; nothing is stored, the requests stay
    pending), or, in a debate started with `redact_secrets`, each hit replaced by `[REDACTED:<kind>]`."""
    from moot.secrets import IN_A_REPLY, SecretFound, screen_text

    seats = {str(r["request_id"]): str(r["seat"]) for r in pending}
    out: dict[str, str] = {}
    hits = []
    for key, text in given.items():
        screened, found = screen_text(text, f"the reply of {seats.get(key, key)}", redact=True)
        out[key] = screened
        hits += found
    if hits and not redact:
        raise SecretFound(hits, IN_A_REPLY)
    return out if redact else dict(given)


def _request_id(reply: Mapping[str, Any], n: int, by_id: Mapping[str, Any], by_seat: Mapping[str, str]) -> str:
    request_id, seat = reply.get("request_id"), reply.get("seat")
    if request_id is not None:
        if str(request_id) not in by_id:
            raise UsageError(f"reply {n}: no pending request {request_id} (pending: {', '.join(by_id) or 'none'})")
        if seat is not None and str(by_id[str(request_id)]["seat"]) != str(seat):
            raise UsageError(
                f"reply {n}: request {request_id} is seat {by_id[str(request_id)]['seat']}'s, not {seat}'s"
            )
        return str(request_id)
    if seat is None:
        raise UsageError(f"reply {n}: give 'seat' or 'request_id'")
    if str(seat) not in by_seat:
        raise UsageError(f"reply {n}: seat {seat} has no pending request (pending: {', '.join(by_seat) or 'none'})")
    return by_seat[str(seat)]


async def submit_replies(
    debate_id: str,
    replies: Sequence[Mapping[str, Any]],
    *,
    store: Store | None = None,
    on_event: Callable[..., None] | None = None,
) -> BaseModel:
    """Give host seats' replies (`[{"seat": ..., "reply": ...}]`, or `request_id` instead of `seat`) and
    continue the debate: the next `Waiting` state, or the debate's result when it ended."""
    store = store or Store.open_default()
    async with _turn(store.require_debate(debate_id).id):
        return await _submit(store, debate_id, replies, on_event)


_TURNS: dict[tuple[int, str], asyncio.Lock] = {}


def _turn(debate_id: str) -> asyncio.Lock:
    """One submit at a time per debate in a process: sub-agents that submit their replies at once (an MCP
    server serves them concurrently) would otherwise each continue the debate, and the step's other seats
    would be asked twice. Each submit then sees the replies stored by the one before it."""
    key = (id(asyncio.get_running_loop()), debate_id)
    return _TURNS.setdefault(key, asyncio.Lock())


async def _submit(
    store: Store, debate_id: str, replies: Sequence[Mapping[str, Any]], on_event: Callable[..., None] | None
) -> BaseModel:
    row = _waiting_row(store, debate_id)
    pending = pending_requests(store, row.id)
    given = screened_replies(match_replies(pending, replies), pending, redact=redacting(row.request))
    if entry(row.protocol) is None:
        raise UsageError(f"debate {row.id} uses protocol '{row.protocol}', which this version cannot continue")
    options = options_from_panel(None, store=store, on_event=on_event)
    options.budget = stored_budget(row.request) or options.budget
    options.pricing = stored_pricing(row.request, options.pricing)
    options.debate_id, options.host_replies = row.id, given
    prepared = restore_redactions(await spec_for(row.protocol).reprepare(row.request, None), row.request)
    result: BaseModel = await run_prepared(prepared, options, resuming=True)
    return result


def submit_replies_sync(*args: Any, **kwargs: Any) -> BaseModel:
    """`submit_replies`, for code that is not async."""
    return asyncio.run(submit_replies(*args, **kwargs))


def cancel_debate(debate_id: str, *, store: Store | None = None) -> dict[str, Any]:
    """End a debate that has not ended (waiting, interrupted, running) as `cancelled`; what it paid for stays
    in the store. A running one, in whatever process, stops before its next call (the engine reads the
    status before each); `cancelled` is final: the run never writes `finished` over it."""
    store = store or Store.open_default()
    row = store.require_debate(debate_id)
    if row.status in ENDED or not store.mark_cancelled(row.id):
        status = store.debate_status(row.id) or row.status
        raise UsageError(f"debate {row.id} has already ended ({status}): nothing to cancel")
    clear_requests(store, row.id)
    return {"debate_id": row.id, "protocol": row.protocol, "status": "cancelled"}


__all__ = ["cancel_debate", "match_replies", "submit_replies", "submit_replies_sync", "waiting_state"]
