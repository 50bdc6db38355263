"""Progress events, so that a CLI, an MCP server, a file writer or a test can follow a debate as it happens.

Plain data at the bottom layer: the runner emits them, and subscribers (reports among them) read them
without importing the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    kind: str  # "round_started", "judge_answered", "judge_dropped", "retry", "round_finished", "record", ...
    round: int = 0
    seat: str = ""
    data: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[Event], None]


def ignore(_: Event) -> None:
    return None


def fan_out(*sinks: EventSink | None) -> EventSink:
    """One sink that passes each event to every given sink, in order."""
    chosen = [s for s in sinks if s is not None]
    if len(chosen) == 1:
        return chosen[0]

    def send(event: Event) -> None:
        for sink in chosen:
            sink(event)

    return send
