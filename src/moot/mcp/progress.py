"""Progress a long one-shot debate sends so that no client cuts it off.

Clients abort a tool call after a while without a response or a progress notification (Claude Code after
300 s, others after 60 s or less), and one round of agent-CLI or reasoning-model judges often takes longer.
So besides the round boundaries (`moot.mcp.server.progress_note`), a debate reports:

- each judge call as it starts and as it ends: the seat, the round, and what came back (the protocol's
  summary of the reply: a score, a verdict, a recommendation; or why the call failed);
- a keep-alive at least every `KEEPALIVE_SECONDS` while calls are in flight, naming the calls still out.

Replayed calls (a resumed debate, a host seat's submit) report nothing: they take no time.
"""

from __future__ import annotations

import time
from typing import Any

from moot.schemas.events import Event

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
