"""Progress events, so that a CLI, an MCP server or a test can follow a debate as it happens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    kind: str  # "round_started", "judge_answered", "judge_dropped", "retry", "round_finished", ...
    round: int = 0
    seat: str = ""
    data: dict[str, Any] = field(default_factory=dict)


EventSink = Callable[[Event], None]


def ignore(_: Event) -> None:
    return None
