"""The one round runner under every protocol.

It owns, once for all protocols: the budget gate before each step (priced from the planned calls, each
prompt rendered once), the concurrent calls of a step (with one clarification each), drops and the
minimum-judges rule, progress events, round records in the store, and spend. A protocol only plans
steps and absorbs answers (`moot.engine.steps`). Ctrl-C, kill and resume need nothing here: every call is
in the store as it completes, and a resumed run replays them through the same steps.

Each step is checked against its judges' context windows first (`context_tokens:`): a step whose prompt
cannot fit is refused before it is sent. Checked for every step of the debate before round 1 is sent (the
dry run's walk, `preflight`), so that a window too small is bad input (one line, exit 2), not a judge dropped
after the calls before it were paid for; and again before each step of the run, with its real prompts: a
step that still does not fit is a resumable stop (`ContextOverflow`, exit 4). Sizes are the engine's
estimate (`budget.prompt_tokens`, the one the dry run shows) plus the seat's output bound. The same walk
checks each judge's `max_tokens` against the shortest reply its schemas allow (every list at its fewest
items, every text at the fewest characters the fitting keeps): a bound below it would cut the reply off,
so it is refused before any call, naming the judge and the minimum.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from moot.engine.ask import Answer, ask
from moot.engine.budget import GRAMMAR_TYPICAL_SHARE, TYPICAL_REPLY_TOKENS, CallCost, prompt_tokens
from moot.engine.core import Engine
from moot.engine.host import host_answer, settle_host
from moot.engine.prefix_share import PrefixLedger
from moot.engine.priming import PRIMER_KIND, PRIMER_TOKENS, Written, primer_key, primers, written_by
from moot.engine.steps import Call, Outcome, ProtocolSteps, Step
from moot.errors import ContextOverflow, DebateAborted, DebateCancelled, UsageError
from moot.judges.base import Seat
from moot.judges.host import is_host
from moot.schemas.events import Event
from moot.schemas.messages import Prompt, Usage
from moot.schemas.reply_bounds import reply_minimum


def context_problem(seat: Seat, prompt: Prompt, round_no: int, output_bound: int) -> str | None:
    """Why a call cannot fit the seat's `context_tokens` (its prompt plus its output bound), or None."""
    window = seat.spec.get("context_tokens")
    if not isinstance(window, int):
        return None
    tokens = prompt_tokens(seat, prompt)
    if tokens + output_bound <= window:
        return None
    return (
        f"judge '{seat.label}' ({seat.id}): the round {round_no} prompt is ~{tokens} tokens and its "
        f"output bound {output_bound}, more than its context_tokens {window} "
        "(raise context_tokens, lower max_tokens or send less context)"
    )


def check_context(engine: Engine, calls: Sequence[tuple[Seat, Prompt]], round_no: int) -> None:
    """Refuse a step (UsageError) whose prompt cannot fit a judge's context window."""
    for seat, prompt in calls:
        problem = context_problem(seat, prompt, round_no, engine.output_bound(seat))
        if problem:
            raise UsageError(problem)


def check_bounds(calls: Sequence[tuple[Seat, Prompt]]) -> None:
    """Refuse (UsageError) a judge whose `max_tokens` is below what the replies of these calls need."""
    need: dict[str, tuple[Seat, int]] = {}
    for seat, prompt in calls:
        minimum = reply_minimum(prompt.json_schema) if prompt.json_schema else 0
        if minimum > need.get(seat.id, (seat, 0))[1]:
            need[seat.id] = (seat, minimum)
    for seat, minimum in need.values():
        bound = seat.spec.get("max_tokens")
        if isinstance(bound, int) and bound < minimum:
            raise UsageError(
                f"judge '{seat.label}' ({seat.id}): max_tokens {bound} is below the {minimum} tokens its replies "
                f"need (their schema at its shortest); set max_tokens: {minimum} or more"
            )


R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")


async def concurrently(calls: Sequence[Awaitable[T]]) -> list[T]:
    """Await all calls of a step at once (structured: if one raises, the others are cancelled).

    Judge failures do not raise (the engine returns them as outcomes), so in practice every call ends; a
    debate cancelled meanwhile raises its `DebateCancelled` itself, not in a group.
    """
    try:
        async with asyncio.TaskGroup() as tg:
            tasks = [tg.create_task(_wrap(c)) for c in calls]
    except* DebateCancelled as group:  # a call found the debate cancelled: the others were stopped with it
        raise group.exceptions[0] from None
    return [t.result() for t in tasks]


async def _wrap(c: Awaitable[T]) -> T:
    return await c


class Runner(Generic[R]):
    """Drives one protocol's steps to its result through one engine."""

    def __init__(self, protocol: ProtocolSteps[R], engine: Engine) -> None:
        self.protocol = protocol
        self.engine = engine
        self.dropped: dict[str, str] = {}
        self.written: Written = set()  # the caches this run's calls have written (`moot.engine.priming`)

    async def run(self) -> R:
        t0 = time.monotonic()
        while (step := self.protocol.plan()) is not None:
            self.engine.check_cancelled()  # between steps too: a cancelled debate starts none
            self._check_context(step)
            if step.gated and self._stopped_by_budget(step):
                break
            answers = await self._step(step)
            outcome = self.protocol.absorb(step, answers)
            self._settle(step, outcome)
            if not outcome.go_on:
                break
        spend = self.engine.spend(wall_seconds=time.monotonic() - t0, final_name=self.protocol.final_name)
        return self.protocol.result(spend)

    def _check_context(self, step: Step) -> None:
        """A step whose real prompt does not fit, although the check before round 1 found room for its estimate:
        a resumable stop with its own exit code (nothing of the step is sent), not bad input."""
        try:
            check_context(self.engine, [(c.seat, c.prompt) for c in step.calls], step.round)
        except UsageError as e:
            raise ContextOverflow(
                f"{e}; the debate is kept: make room, then continue with 'moot resume {self.engine.debate_id}'"
            ) from None

    def _sending(self, step: Step) -> list[tuple[Seat, Prompt]]:
        """The step's calls that will reach a vendor: not a host seat's, not one the store replays."""
        return [
            (c.seat, c.prompt)
            for c in step.calls
            if not is_host(c.seat) and self.engine.replayable(c.key, c.prompt) is None
        ]

    def _primers(self, step: Step, sending: Sequence[tuple[Seat, Prompt]]) -> list[tuple[Seat, Prompt, str]]:
        return [(seat, p, primer_key(step.round, seat)) for seat, p in primers(sending, self.written)]

    def _stopped_by_budget(self, step: Step) -> bool:
        planned = [(c.seat, c.prompt, c.key) for c in step.calls] + self._primers(step, self._sending(step))
        reason = self.engine.round_gate(step.round, planned, step.reserve)
        if reason is None:
            return False
        if step.first:
            raise DebateAborted(reason)
        outcome = self.protocol.stopped(step, reason)
        if outcome is not None:  # a protocol that closes its round on a stop (challenge's round 1)
            self._settle(step, outcome)
        return True

    async def _step(self, step: Step) -> list[Answer[Any]]:
        data: dict[str, Any] = {"judges": [c.seat.id for c in step.calls]}
        if step.phase:
            data["phase"] = step.phase
        self.engine.emit(Event("round_started", step.round, data=data))
        await self._prime(step)
        answers = await concurrently([self._ask(step, call) for call in step.calls])
        settle_host(step, answers)
        return answers

    async def _prime(self, step: Step) -> None:
        """Write each cache the step's calls would write together, once, before they go (what the primer
        answers is never read; a failed one only leaves the step as it would have been)."""
        sending = self._sending(step)
        calls = self._primers(step, sending)
        await concurrently(
            [self.engine.call(seat, p, key=key, round_no=step.round, kind=PRIMER_KIND) for seat, p, key in calls]
        )
        self.written |= written_by(sending)

    async def _ask(self, step: Step, call: Call[Any]) -> Answer[Any]:
        if is_host(call.seat):
            answer = await host_answer(self.engine, call, step.round)
        else:
            answer = await self._vendor(step, call)
        if answer.value is not None and call.describe is not None:
            data = {**call.describe(answer.value), "clarified": answer.clarified}
            self.engine.emit(Event("judge_answered", step.round, call.seat.id, data))
        return answer

    async def _vendor(self, step: Step, call: Call[Any]) -> Answer[Any]:
        return await ask(
            self.engine,
            call.seat,
            call.prompt,
            call.parse,
            key=call.key,
            round_no=step.round,
            kind=call.kind,
            clarify=call.clarify,
        )

    def _settle(self, step: Step, outcome: Outcome) -> None:
        """Drops, the minimum-judges rule, round records and events, in that order."""
        for seat_id, reason in outcome.dropped.items():
            self.dropped[seat_id] = reason
            self.engine.emit(Event("judge_dropped", step.round, seat_id, {"reason": reason}))
        for event in outcome.events:
            self.engine.emit(event)
        if outcome.abort is not None:
            raise DebateAborted(outcome.abort)
        if outcome.active is not None and outcome.active < step.quorum:
            raise DebateAborted(
                f"fewer than two judges left after round {step.round}: "
                + "; ".join(f"{k}: {v}" for k, v in self.dropped.items())
            )
        if outcome.round_record is not None:
            self.engine.store.record_round(self.engine.debate_id, step.round, outcome.round_record)
        for record in outcome.records:
            self.engine.emit(Event("record", step.round, data={"record": record}))
        if outcome.round_finished is not None:
            self.engine.emit(Event("round_finished", step.round, data=outcome.round_finished))


async def run_steps(protocol: ProtocolSteps[R], engine: Engine) -> R:
    """Run a protocol to its result (raises DebateAborted when it cannot end trustworthily)."""
    return await Runner(protocol, engine).run()


def typical_reply(engine: Engine, seat: Any) -> int:
    """A typical reply's tokens for the estimate: `TYPICAL_REPLY_TOKENS`, but never past the seat's output bound
    (a local judge's replies are fitted under it)."""
    bound = engine.output_bound(seat)
    if getattr(seat.judge, "enforced", False):  # a grammar server: its replies are fitted under the bound
        return min(TYPICAL_REPLY_TOKENS, int(bound * GRAMMAR_TYPICAL_SHARE))
    return min(TYPICAL_REPLY_TOKENS, bound)


def rehearse_plan(typical: ProtocolSteps[Any], worst: ProtocolSteps[Any], engine: Engine) -> list[CallCost]:
    """Every call of a debate's longest path, priced from the protocol's own prompts, sending nothing.

    Two copies of the protocol walk the same steps: one with placeholder replies of typical size (the
    estimate, its cached input what a vendor's cache is expected to serve of it: `prefix_share`), one with
    replies at each seat's output bound (the worst case, nothing cached).
    """
    costs: list[CallCost] = []
    planned: list[tuple[Any, Any]] = []
    ledger = PrefixLedger()
    step_no = 0
    written: Written = set()
    while (t_step := typical.plan()) is not None and (w_step := worst.plan()) is not None:
        check_context(engine, [(c.seat, c.prompt) for c in t_step.calls], t_step.round)
        planned += [(c.seat, c.prompt) for c in w_step.calls]
        sending = [(c.seat, c.prompt) for c in t_step.calls if not is_host(c.seat)]
        step_no = _rehearse_primers(engine, primers(sending, written), t_step, ledger, costs, step_no)
        written |= written_by(sending)
        step_no += 1
        for t_call, w_call in zip(t_step.calls, w_step.calls, strict=True):
            repeated, cached = ledger.add(t_call.seat.label, step_no, t_call.prompt)
            t = engine.call_cost(t_call.seat, t_call.prompt, t_step.round, cached=cached)
            w = engine.call_cost(w_call.seat, w_call.prompt, w_step.round)
            costs.append(
                replace(t, worst_usd=w.worst_usd, phase=t_step.phase, repeated_tokens=repeated, cached_tokens=cached)
            )
        t_out = typical.absorb(t_step, [typical.rehearse(c, typical_reply(engine, c.seat)) for c in t_step.calls])
        w_out = worst.absorb(w_step, [worst.rehearse(c, engine.call_bound(c.seat, c.prompt)) for c in w_step.calls])
        if not (t_out.go_on and w_out.go_on):
            break
    check_bounds(planned)
    return costs


def _rehearse_primers(
    engine: Engine,
    calls: Sequence[tuple[Seat, Prompt]],
    step: Step,
    ledger: PrefixLedger,
    costs: list[CallCost],
    step_no: int,
) -> int:
    """The primers a step would send, priced as calls of a step of their own before it; the step number after."""
    if not calls:
        return step_no
    step_no += 1
    for seat, prompt in calls:
        repeated, cached = ledger.add(seat.label, step_no, prompt)
        cost = engine.call_cost(seat, prompt, step.round, cached=cached)
        usage = Usage(input_tokens=cost.input_tokens, output_tokens=PRIMER_TOKENS)
        typical = engine.seat_price(seat, usage.model_copy(update={"cached_tokens": cached}))
        worst = engine.seat_price(seat, usage)  # never clarified: its reply is not read
        primer = replace(cost, typical_usd=typical, worst_usd=worst, phase=PRIMER_KIND)
        costs.append(replace(primer, repeated_tokens=repeated, cached_tokens=cached))
    return step_no
