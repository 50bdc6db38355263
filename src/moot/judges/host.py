"""A host seat: a seat whose replies come from the caller (the coding agent that started the debate), not
from a vendor.

The host seat is one more `Judge`. The engine never sends it a prompt: where its reply is due, the runner
stops the debate in status `waiting` with the request the seat would have been sent (`moot.engine.host`),
and the caller's reply, once given (`submit_replies`, `moot reply`), is stored as that call's reply and
replayed like any stored call. Nothing about it calls a vendor or needs a key.
"""

from __future__ import annotations

from moot.errors import JudgeError
from moot.judges.base import Seat
from moot.schemas.messages import Completion, Prompt

HOST = "host"  # the provider of every host seat, and the word that makes a seat one (`--judges host`)


class HostJudge:
    """The judge of a host seat. Asked directly, it refuses: its replies arrive through the store."""

    provider = HOST

    def __init__(self, model: str = HOST) -> None:
        self.model = model

    def __repr__(self) -> str:
        return f"HostJudge(model={self.model!r})"

    async def complete(self, prompt: Prompt, *, timeout: float) -> Completion:
        raise JudgeError("a host seat is answered by its caller (submit_replies / moot reply), not called")

    async def aclose(self) -> None:
        return None


def is_host(seat: Seat) -> bool:
    """Whether the seat's replies come from the caller."""
    return bool(seat.judges) and isinstance(seat.judges[0], HostJudge)
