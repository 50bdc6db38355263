"""Ask a seat for a reply that must validate: one call, and at most one clarification request.

This is the single place where the seeds' parse-failure rule lives ("request clarification, then treat
as no answer"), for every protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from moot.engine.core import CallOutcome, Engine
from moot.engine.events import Event
from moot.judges.base import Seat
from moot.parsing.extract import ReplyError
from moot.schemas.messages import Prompt

T = TypeVar("T")


@dataclass
class Answer(Generic[T]):
    """What came of asking a seat: a validated value, or why there is none."""

    value: T | None
    text: str  # the last raw reply (kept even when it did not validate)
    status: str  # "ok" | "unparsed" | "timeout" | "error"
    reason: str = ""
    clarified: bool = False
    answered_by: str = ""

    @property
    def ok(self) -> bool:
        return self.value is not None


ClarifyText = Callable[[str], str]


async def ask(
    engine: Engine,
    seat: Seat,
    prompt: Prompt,
    parse: Callable[[str], T],
    *,
    key: str,
    round_no: int,
    kind: str,
    clarify: ClarifyText,
) -> Answer[T]:
    """Call `seat`, parse the reply; if parsing raises ReplyError, send `clarify(reason)` once."""
    first = await engine.call(seat, prompt, key=key, round_no=round_no, kind=kind)
    if not first.ok:
        return _failed(first)
    try:
        return Answer(parse(first.text), first.text, "ok", answered_by=first.answered_by)
    except ReplyError as e:
        reason = str(e)
    engine.emit(Event("clarification", round_no, seat.id, {"reason": reason}))
    followup = prompt.followed_by(first.text, clarify(reason))
    followup = followup.model_copy(update={"meta": {**prompt.meta, "kind": f"{kind}-clarify"}})
    second = await engine.call(seat, followup, key=f"{key}/clarify", round_no=round_no, kind="clarify")
    if not second.ok:
        return _failed(second, clarified=True)
    try:
        return Answer(parse(second.text), second.text, "ok", clarified=True, answered_by=second.answered_by)
    except ReplyError as e:
        return Answer(None, second.text, "unparsed", f"unusable reply after clarification: {e}", clarified=True)


def _failed(o: CallOutcome, *, clarified: bool = False) -> Answer[T]:
    return Answer(None, o.text, o.status, o.error or o.status, clarified=clarified)
