"""Ask a seat for a reply that must validate: one call, and at most one clarification request.

This is the single place where the seeds' parse-failure rule lives ("request clarification, then treat
as no answer"), for every protocol. A long reply is parsed in a worker thread (`parsed`): reading 2 MB
of YAML takes seconds, and on the event loop it would freeze every other debate of a batch meanwhile.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from moot.engine.calls import CallOutcome
from moot.engine.core import Engine
from moot.judges.base import Seat
from moot.parsing.extract import ReplyError
from moot.schemas.events import Event
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
OFF_LOOP_CHARS = 50_000  # a reply this long or longer is parsed off the event loop


async def parsed(parse: Callable[[str], T], text: str) -> T:
    """`parse(text)`; in a worker thread when `text` is long, so that the loop goes on serving the other
    debates (the thread gives up the interpreter every few milliseconds). Parsers are pure functions."""
    if len(text) < OFF_LOOP_CHARS:
        return parse(text)
    return await asyncio.to_thread(parse, text)


def passed_on(text: str) -> str:
    """A reply as the debate reads it, and so as it reaches the other judges' prompts, the result and the
    reports: any secret the screen finds in it (`moot.secrets`) replaced by `[REDACTED:<kind>]`. The
    inputs were screened before any call, so a secret here is one a judge wrote or read (an agent with
    tools, a host seat): it is withheld rather than passed on; the raw reply stays in the local store. A
    reply seen before (a resumed debate replays every stored one) is not screened again."""
    from moot.secrets import redact_text

    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    if key in _PASSED:
        _PASSED.move_to_end(key)
        found = _PASSED[key]
        return text if found is None else found
    shown = redact_text(text)
    _PASSED[key] = None if shown == text else shown
    if len(_PASSED) > _PASSED_MAX:
        _PASSED.popitem(last=False)
    return shown


# replies already screened, by digest: None when nothing was redacted (the reply itself is not kept twice)
_PASSED: OrderedDict[bytes, str | None] = OrderedDict()
_PASSED_MAX = 4096


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
    text = passed_on(first.text)
    try:
        return Answer(await parsed(parse, text), text, "ok", answered_by=first.answered_by)
    except ReplyError as e:
        reason = _why(first, e)
        # a reply worth something as it stands (`usable`) is asked to be corrected once, never dropped for it
        kept: Answer[T] | None = None
        if e.usable is not None:
            kept = Answer(cast(T, e.usable), text, "ok", answered_by=first.answered_by)
    engine.emit(Event("clarification", round_no, seat.id, {"reason": reason}))
    followup = prompt.followed_by(text, clarify(reason))
    followup = followup.model_copy(update={"meta": {**prompt.meta, "kind": f"{kind}-clarify"}})
    second = await engine.call(seat, followup, key=f"{key}/clarify", round_no=round_no, kind="clarify")
    if not second.ok:
        return _kept(kept) if kept is not None else _failed(second, clarified=True)
    text = passed_on(second.text)
    try:
        value = await parsed(parse, text)
        return Answer(value, text, "ok", clarified=True, answered_by=second.answered_by)
    except ReplyError as e:
        if e.usable is not None:
            return Answer(cast(T, e.usable), text, "ok", clarified=True, answered_by=second.answered_by)
        if kept is not None:
            return _kept(kept)
        return Answer(None, text, "unparsed", f"unusable reply after clarification: {_why(second, e)}", clarified=True)


def _kept(answer: Answer[T]) -> Answer[T]:
    answer.clarified = True
    return answer


CUT_REASONS = ("length", "max_tokens", "MAX_TOKENS")  # OpenAI-compatible servers, Anthropic, Gemini


def _why(o: CallOutcome, e: ReplyError) -> str:
    """Why a reply could not be used: a reply the server ended at its output bound is said to be cut off (the
    finish reason), which is what to fix, rather than only what the parser missed in it."""
    if o.finish_reason in CUT_REASONS:
        return f"the reply was cut off at its output bound (finish_reason: {o.finish_reason}; raise max_tokens): {e}"
    return str(e)


def _failed(o: CallOutcome, *, clarified: bool = False) -> Answer[T]:
    return Answer(None, o.text, o.status, o.error or o.status, clarified=clarified)
