"""Progress a long one-shot debate sends so that no client cuts it off.

Clients abort a tool call after a while without a response or a progress notification (Claude Code after
300 s, others after 60 s or less), and one round of agent-CLI or reasoning-model judges often takes longer.
So besides the round boundaries (`progress_note`), a debate reports:

- each judge call as it starts and as it ends: the seat, the round, and what came back (the protocol's
  summary of the reply: a score, a verdict, a recommendation; or why the call failed);
- a keep-alive at least every `KEEPALIVE_SECONDS` while calls are in flight, naming the calls still out.

Replayed calls (a resumed debate, a host seat's submit) report nothing: they take no time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import Context

from moot.schemas.events import Event, EventSink

T = TypeVar("T")

KEEPALIVE_SECONDS = 5.0  # at most this long without a notification while a call is out (the issue asks <= 10 s)


def nudge(last: float, total: float | None, *, keep_alive: bool = False) -> float | None:
    """A value just above `last` for a note between round boundaries (progress must rise), under the total;
    None when there is no room left (the step after the last round). A keep-alive is sent anyway, at the
    total: the client must hear from the debate more than it must see progress."""
    value = round(last + 0.001, 6)
    if total is None or value < total:
        return value
    return float(total) if keep_alive else None


def _where(event: Event) -> str:
    return f"round {event.round}" if event.round else "final"


def _said(data: dict[str, Any]) -> str:
    """What came back, as the protocol described it (`Call.describe`), in a few words."""
    parts = [f"{k} {v}" for k, v in data.items() if k != "clarified" and isinstance(v, str | int | float)]
    return ", ".join(parts[:4])


class CallsInFlight:
    """The judge calls of a debate that have started and not ended, for call notes and the keep-alive."""

    def __init__(self) -> None:
        self.out: dict[tuple[int, str], float] = {}  # (round, seat) -> when it started

    def note(self, event: Event) -> str | None:
        """The message for a call event (its start, its end, what came back), or None for other events."""
        key = (event.round, event.seat)
        if event.kind == "call_started":
            self.out[key] = time.monotonic()
            return f"{_where(event)}: {event.seat} asked ({event.data.get('kind', 'call')})"
        if event.kind == "call_done" and not event.data.get("replayed"):
            self.out.pop(key, None)
            if event.data.get("ok"):
                return f"{_where(event)}: {event.seat} replied in {event.data.get('latency_s', 0):.1f}s"
            return f"{_where(event)}: {event.seat} gave no reply"
        if event.kind == "judge_answered":
            return f"{_where(event)}: {event.seat} answered: {_said(event.data)}"
        return None

    def keep_alive(self) -> str | None:
        """The keep-alive message while calls are out (None when none is)."""
        if not self.out:
            return None
        now = time.monotonic()
        waiting = ", ".join(f"{seat} ({now - t:.0f}s)" for (_, seat), t in sorted(self.out.items()))
        return f"still waiting for {waiting}"


def progress_note(event: Event, total: int | None) -> tuple[float, float | None, str] | None:
    """The progress notification for an engine event, or None for events that are not round boundaries.

    Round N's start is N - 0.5, its end N (`with_progress` keeps the values rising when a protocol has
    several phases per round, or a closing phase numbered 0).
    """
    if event.kind == "round_started":
        who = event.data.get("judges")
        phase = event.data.get("phase")
        tail = f": {phase}" if isinstance(phase, str) else ""
        tail += f" with {', '.join(map(str, who))}" if isinstance(who, list) else ""
        where = f"round {event.round}" if event.round else "final"  # round 0: the step after the last round
        return event.round - 0.5, total, f"{where} started{tail}"
    if event.kind == "round_finished":
        scores = event.data.get("scores")
        consensus = event.data.get("consensus")
        message = f"round {event.round} finished"
        if isinstance(scores, list):
            message += ": scores " + ", ".join(f"{s:g}" if isinstance(s, int | float) else str(s) for s in scores)
        elif isinstance(event.data.get("range"), str):
            message += f": {event.data['range']}"
        if isinstance(consensus, bool):
            message += "; consensus" if consensus else "; no consensus yet"
        return float(event.round), total, message
    if event.kind == "note" and "decision" in event.data and isinstance(event.data.get("text"), str):
        return float(event.round), total, event.data["text"]  # a protocol that closes its rounds with a note
    return None


def next_progress(last: float, value: float, total: float | None) -> float | None:
    """The value to report after `last`: `value`, or a little more than `last` when a protocol has several
    phases per round (progress must rise), never past `total`. None: nothing can be reported without
    passing the total (a step after the last round, such as a synthesis, when every round was run)."""
    rising = value if value > last else round(last + 0.1, 4)
    if total is not None:
        rising = min(rising, float(total))
    return rising if rising > last else None


async def with_progress(ctx: Context, total: int | None, run: Callable[[EventSink], Awaitable[T]]) -> T:
    """Run a debate, forwarding its round events to the client as progress notifications, in order.

    The engine's event sink is synchronous; a memory stream hands events to a task that awaits the
    notifications, so a slow client never blocks a round.
    """
    send, receive = anyio.create_memory_object_stream[Event](math.inf)
    outcome: list[T] = []
    failure: list[BaseException] = []

    async def forward() -> None:
        last = 0.0
        calls = CallsInFlight()  # each judge call's start and end, and a keep-alive while any is out
        async with receive:
            while True:
                event, message = None, None
                with anyio.move_on_after(KEEPALIVE_SECONDS):
                    try:
                        event = await receive.receive()
                    except anyio.EndOfStream:
                        return
                note = progress_note(event, total) if event is not None else None
                if note is not None:
                    value, of, text = note
                    rising = next_progress(last, value, of)
                    if rising is not None:
                        last = rising
                        await ctx.report_progress(last, of, text)
                    continue
                message = calls.note(event) if event is not None else calls.keep_alive()
                nudged = nudge(last, total, keep_alive=event is None) if message is not None else None
                if nudged is not None:
                    last = nudged
                    await ctx.report_progress(last, total, message)

    async def debate() -> None:
        with send:
            try:
                outcome.append(await run(send.send_nowait))
            except Exception as e:
                failure.append(e)

    async with anyio.create_task_group() as tg:
        tg.start_soon(forward)
        await debate()
    if failure:
        raise failure[0]
    return outcome[0]
