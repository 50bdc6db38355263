"""Host seats in the runner: where a host reply is due, the debate stops and says what it waits for.

A host seat's reply is a stored call like any other. When the runner reaches a host seat's call:

- a reply already stored for the call's key is replayed (a debate resumed after a submit);
- a reply the caller has just given (`Engine.host_replies`, by call key) is read by the call's own parser,
  with the same bounds and rules as a vendor's reply: if it reads, it is stored as the call's reply; if
  not, it is refused with the parser's one-line reason (`HostReplyRefused`), and its request stays pending;
- otherwise the call is pending: once the step's other seats have answered (and been stored), the runner
  stops the debate with every pending request of the step (`HostWaiting`).

Nothing is asked twice: a resumed debate replays every stored call, the host's and the vendors', and goes
on from the first step whose host replies are missing.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from moot.engine.ask import Answer, parsed, passed_on
from moot.engine.core import Engine
from moot.engine.steps import Call, Step
from moot.errors import UsageError
from moot.judges.host import HOST
from moot.parsing.extract import ReplyError

WAITING = "waiting"  # an Answer's status: the caller has not replied yet
REFUSED = "refused"  # an Answer's status: the caller's reply could not be read


class HostWaiting(Exception):
    """The debate stopped where host replies are due: `requests` are the step's pending requests."""

    def __init__(self, requests: list[dict[str, Any]]) -> None:
        super().__init__(f"waiting for {len(requests)} host reply(ies)")
        self.requests = requests


class HostReplyRefused(UsageError):
    """A host reply the protocol's parser could not read: bad input; its request stays pending. `pending`
    is what the step still waits for (the refused requests and those not answered), so that a good reply
    given in the same submit, stored, is no longer listed."""

    def __init__(self, message: str, pending: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.pending = pending


async def host_answer(engine: Engine, call: Call[Any], round_no: int) -> Answer[Any]:
    """The answer of a host seat's call: replayed, read from the caller's reply, or pending."""
    if engine.replayable(call.key, call.prompt) is not None:
        outcome = await engine.call(call.seat, call.prompt, key=call.key, round_no=round_no, kind=call.kind)
        return await _read(call, outcome.text)
    text = engine.host_replies.get(call.key)
    if text is None:
        return Answer(None, "", WAITING)
    answer = await _read(call, text)
    if answer.ok:
        engine.record_given(call.seat, call.prompt, key=call.key, round_no=round_no, kind=call.kind, text=text)
    return answer


async def _read(call: Call[Any], given: str) -> Answer[Any]:
    text = passed_on(given)  # as a vendor's reply: what reaches the other judges has no secret in it
    try:
        return Answer(await _parsed(call, text), text, "ok", answered_by=HOST)
    except ReplyError as e:
        if e.usable is not None:  # host seats get no clarification: the reply is taken as it stands
            return Answer(e.usable, text, "ok", answered_by=HOST)
        return Answer(None, text, REFUSED, str(e))


# Replies already read, by (call key, question, reply): a debate driven turn by turn replays every earlier
# host reply at each step, and reading them again (YAML) was most of a step's time in a running server. The
# parser is a pure function of the question (which quotes whatever it depends on) and the reply, so a reply
# read once is the same value again; a deep copy is handed out, as a protocol may keep and change it.
_READ: OrderedDict[tuple[str, int, int], Any] = OrderedDict()
_READ_MAX = 4096


async def _parsed(call: Call[Any], text: str) -> Any:
    key = (call.key, hash((call.prompt.system, tuple(m.content for m in call.prompt.messages))), hash(text))
    if key in _READ:
        _READ.move_to_end(key)
        return copy.deepcopy(_READ[key])
    value = await parsed(call.parse, text)
    _READ[key] = copy.deepcopy(value)
    if len(_READ) > _READ_MAX:
        _READ.popitem(last=False)
    return value


def request_of(step: Step, call: Call[Any]) -> dict[str, Any]:
    """One pending request: what a vendor would be sent for this seat at this step, and its reply schema."""
    prompt = call.prompt
    phase = step.phase or str(prompt.meta.get("phase") or call.kind)
    return {
        "request_id": call.key,
        "seat": call.seat.id,
        "role": str(prompt.meta.get("role") or call.seat.stance),  # a seat outside the panel may name its part
        "round": step.round,
        "phase": phase,
        "system": prompt.system,
        "prompt": "\n\n".join(m.content for m in prompt.messages),
        "schema": prompt.json_schema or {},
    }


def settle_host(step: Step, answers: Sequence[Answer[Any]]) -> None:
    """After a step's calls: a refused host reply is bad input; a missing one stops the debate waiting."""
    pairs = list(zip(step.calls, answers, strict=True))
    refused = [f"{c.seat.id}: {a.reason}" for c, a in pairs if a.status == REFUSED]
    pending = [request_of(step, c) for c, a in pairs if a.status in (WAITING, REFUSED)]
    if refused:
        raise HostReplyRefused("reply refused, still pending: " + "; ".join(refused), pending)
    if pending:
        raise HostWaiting(pending)
