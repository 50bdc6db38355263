"""What a debate protocol is to the runner: a small set of steps over its own state.

A protocol (evaluate, decide, challenge) never awaits a judge and never writes a file. It answers three
questions, and `moot.engine.runner` does everything else once, for every protocol:

    plan()            the calls of the next step (seat, prompt, reply parser, call key), or None: done
    absorb(answers)   the step's answers folded into the state; whether the debate goes on
    result(spend)     the typed result of the final state

The same plan drives a real run and a dry run: `rehearse(call, tokens)` makes a placeholder answer of a
given size, so the estimate prices the very prompts a real debate would send.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from moot.engine.ask import Answer
from moot.judges.base import Seat
from moot.schemas.events import Event
from moot.schemas.messages import Prompt
from moot.schemas.spend import Spend

T = TypeVar("T")
R_co = TypeVar("R_co", bound=BaseModel, covariant=True)


@dataclass(frozen=True)
class Call(Generic[T]):
    """One planned call: who is asked what, how the reply is validated, and how to ask again once."""

    seat: Seat
    prompt: Prompt
    key: str  # stable within a debate ("r2/judge-1"): what resume replays by
    kind: str  # "judge", "opening", "challenge", "confront", "rebuttal", "assumptions", "moderator"
    parse: Callable[[str], T]
    clarify: Callable[[str], str]
    describe: Callable[[T], dict[str, Any]] | None = None  # progress data once the value is known


@dataclass(frozen=True)
class Step:
    """The calls that go out together (concurrently), and how the budget sees them."""

    round: int
    calls: Sequence[Call[Any]]
    phase: str = ""  # "" for a plain round; challenge names its phases
    gated: bool = True  # checked against the budget before it starts
    first: bool = False  # a budget stop here leaves nothing to conclude from: the debate fails
    reserve: Sequence[tuple[Seat, int]] = ()  # calls that must still fit afterwards: (seat, input tokens)
    quorum: int = 0  # fewer active seats than this after the step: the debate cannot end trustworthily


@dataclass
class Outcome:
    """What a step changed, as the runner needs it: drops, records to store, events to send, go on or stop."""

    go_on: bool
    dropped: dict[str, str] = field(default_factory=dict)  # seat id -> reason
    active: int | None = None  # seats still taking part, checked against the step's quorum
    round_record: dict[str, Any] | None = None  # stored as the round's record
    round_finished: dict[str, Any] | None = None  # data of the round's "round_finished" event
    events: list[Event] = field(default_factory=list)
    records: list[BaseModel] = field(default_factory=list)  # typed records for subscribers (files for people)
    abort: str | None = None  # why the debate cannot reach a trustworthy end


class ProtocolSteps(Protocol[R_co]):
    """The interface every debate protocol implements (see the module docstring)."""

    name: str
    final_name: str  # what round 0, the step after the last round, is called in spend and reports

    def plan(self) -> Step | None: ...

    def absorb(self, step: Step, answers: Sequence[Answer[Any]]) -> Outcome: ...

    def stopped(self, step: Step, reason: str) -> Outcome | None:
        """The budget ended the debate before `step`: note it; the result comes from what was done.

        An Outcome, when given, is settled like a step's (a round the stop closes is stored and noted).
        """
        ...

    def rehearse(self, call: Call[Any], tokens: int) -> Answer[Any]:
        """A placeholder answer of about `tokens` output tokens that keeps the debate going (the worst path)."""
        ...

    def result(self, spend: Spend) -> R_co:
        """The typed result of the final state, with what the debate spent."""
        ...
