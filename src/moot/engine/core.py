"""The engine: runs one call to one seat with retries, fallbacks, limits and accounting, and records it.

A call has a stable key within its debate ("r2/judge-1", "r2/judge-1/clarify"). Before calling, the
engine looks the key up in the store: a call that completed before a crash, kill or outage is replayed
from there and not paid for twice. That is all `moot resume` needs, since protocols are deterministic
given replies. Only completed calls replay: a call that failed or timed out is asked again (the vendor
may be back), and so is a completed one whose question has changed since (a judge that failed earlier now
answered, so later prompts quote it), since its reply would answer a question no longer asked.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

from moot.engine.budget import (
    CLARIFY_OVERHEAD_TOKENS,
    TYPICAL_REPLY_TOKENS,
    Budget,
    CallCost,
    over_budget,
    prompt_tokens,
    tokens_of,
)
from moot.engine.calls import CallOutcome, RetryPolicy, outcome_from_record, same_question
from moot.engine.limits import Limits
from moot.engine.pricing import Pricing, SpendAccount
from moot.engine.scripts import script_place
from moot.engine.server_queue import timed_call
from moot.errors import DebateCancelled, JudgeError, JudgeTimeout, TransientJudgeError
from moot.judges.base import Judge, Seat
from moot.judges.host import is_host
from moot.judges.providers import DEFAULT_MAX_OUTPUT_TOKENS
from moot.schemas.events import Event, EventSink, ignore
from moot.schemas.messages import Completion, Prompt, Usage
from moot.schemas.spend import Spend
from moot.store.db import CallRecord, Store, now_iso


@dataclass
class EngineOptions:
    """How an engine makes its calls. A debate's `RunOptions` extends this, so that an option is declared
    once and reaches the engine by its name (`Engine.from_options`)."""

    on_event: EventSink | None = None
    policy: RetryPolicy | None = None
    limits: Limits | None = None
    pricing: Pricing | None = None
    deadline: float | None = None
    budget: Budget | None = None  # --max-cost and the wall-clock budget
    host_replies: dict[str, str] | None = None  # host seats' replies just given, by call key (engine/host.py)
    sampling: dict[str, Any] | None = None  # the debate's sampling options (seed, ...), sent in every request


# the debate's sampling options, kept beside its stored request so that a resumed debate samples the same
STORED_SAMPLING_KEY = "run_sampling"


def stored_sampling(stored: Any) -> dict[str, Any] | None:
    """The sampling options a stored debate was started with (None: none)."""
    found = stored.get(STORED_SAMPLING_KEY) if isinstance(stored, dict) else None
    return dict(found) if isinstance(found, dict) and found else None


class Engine:
    @classmethod
    def from_options(cls, store: Store, debate_id: str, options: EngineOptions) -> Engine:
        return cls(store, debate_id, **{f.name: getattr(options, f.name) for f in fields(EngineOptions)})

    def __init__(
        self,
        store: Store,
        debate_id: str,
        *,
        policy: RetryPolicy | None = None,
        limits: Limits | None = None,
        pricing: Pricing | None = None,
        on_event: EventSink | None = None,
        deadline: float | None = None,
        budget: Budget | None = None,
        host_replies: dict[str, str] | None = None,
        sampling: dict[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.sampling = sampling or {}
        self.host_replies = host_replies or {}
        self.debate_id = debate_id
        self.policy = policy or RetryPolicy()
        self.limits = limits or Limits()
        self.pricing = pricing or Pricing()
        self.emit: EventSink = on_event or ignore
        self.budget = budget or Budget()
        if self.budget.wall_seconds is not None:
            own = time.monotonic() + self.budget.wall_seconds
            deadline = own if deadline is None else min(deadline, own)
        self.deadline = deadline  # time.monotonic() by which the whole debate must end
        self.calls_made = 0  # real (not replayed) calls in this run
        self._account: SpendAccount | None = None

    @property
    def account(self) -> SpendAccount:
        """The debate's calls as they count for spend: read from the store once (a resumed debate's
        earlier calls), then kept up to date as calls complete."""
        if self._account is None:
            self._account = SpendAccount(self.store.calls(self.debate_id))
        return self._account

    # budget: what rounds may still start

    @staticmethod
    def output_bound(seat: Seat) -> int:
        """The most output tokens one call of this seat may produce (its `max_tokens`, else the default)."""
        bound = seat.spec.get("max_tokens")
        return bound if isinstance(bound, int) and bound > 0 else DEFAULT_MAX_OUTPUT_TOKENS

    @staticmethod
    def call_bound(seat: Seat, prompt: Prompt) -> int:
        """The most output tokens one call may produce: the seat's own `max_tokens` when it sets one (a
        judge's bound is the user's word), else the bound of the call's phase (`Prompt.max_tokens`, what a
        rebuttal or a final position needs), else the default."""
        own = seat.spec.get("max_tokens")
        if isinstance(own, int) and own > 0:
            return own
        return prompt.max_tokens or DEFAULT_MAX_OUTPUT_TOKENS

    def seat_price(self, seat: Seat, usage: Usage) -> float | None:
        """The cost of `usage` at the dearest model of the seat (a fallback may take the seat)."""
        costs = [self.pricing.judge_cost(j, usage) for j in seat.judges]
        return None if any(c is None for c in costs) else max(c for c in costs if c is not None)

    def call_cost(self, seat: Seat, prompt: Prompt, round_no: int, *, cached: int = 0) -> CallCost:
        """What one planned call should cost typically (`cached` of its input tokens served by the vendor's
        cache), and at worst (with a clarification, at the bound)."""
        tokens_in = prompt_tokens(seat, prompt)
        typical = self.seat_price(
            seat, Usage(input_tokens=tokens_in, output_tokens=TYPICAL_REPLY_TOKENS, cached_tokens=cached)
        )
        bound = self.call_bound(seat, prompt)
        worst = self.worst_cost(seat, tokens_in, bound)
        return CallCost(seat.id, seat.label, round_no, tokens_in, typical, worst, host=is_host(seat), max_tokens=bound)

    def worst_cost(self, seat: Seat, tokens_in: int, bound: int | None = None) -> float | None:
        """A call of `tokens_in` input tokens answered at its output bound (the seat's, unless given), then its
        clarification."""
        bound = bound or self.output_bound(seat)
        first = self.seat_price(seat, Usage(input_tokens=tokens_in, output_tokens=bound))
        clarify = self.seat_price(
            seat, Usage(input_tokens=tokens_in + bound + CLARIFY_OVERHEAD_TOKENS, output_tokens=bound)
        )
        return None if first is None or clarify is None else round(first + clarify, 8)

    def spend(self, *, wall_seconds: float, final_name: str = "synthesis") -> Spend:
        """What this debate has spent, calls made before a resume included."""
        return self.account.spend(wall_seconds=wall_seconds, final_name=final_name)

    def spent(self) -> float:
        """Dollars this debate has paid so far (including calls made before a resume)."""
        return self.account.spent()

    def round_gate(
        self,
        round_no: int,
        planned: Sequence[tuple[Seat, Prompt, str]],
        reserve: Sequence[tuple[Seat, int]] = (),
    ) -> str | None:
        """Why round `round_no` must not start (the budget), or None if it may.

        `planned` are the round's calls (seat, prompt, call key); calls already in the store are replayed
        for free and not counted. `reserve` are calls the debate must still be able to make afterwards
        (a moderator's synthesis), as (seat, estimated input tokens).
        """
        if self.deadline is not None and time.monotonic() >= self.deadline:
            reason = f"stopped before round {round_no}: the debate's wall-clock budget ran out"
            self.emit(Event("budget_stop", round_no, data={"reason": reason}))
            return reason
        cap = self.budget.max_cost_usd
        if cap is None:
            return None
        costs = [
            self.call_cost(seat, prompt, round_no)
            for seat, prompt, key in planned
            if self.replayable(key, prompt) is None
        ]
        worst_each = [(seat.label, self.worst_cost(seat, tokens_in)) for seat, tokens_in in reserve]
        worst_each += [(c.model, c.worst_usd) for c in costs]
        unpriced = sorted({name for name, cost in worst_each if cost is None})
        if unpriced:
            reason = (
                f"not starting round {round_no}: no price known for {', '.join(unpriced)}, so --max-cost cannot be kept"
            )
        else:
            worst = sum(cost or 0.0 for _, cost in worst_each)
            spent = self.spent()
            if not over_budget(spent, worst, cap):
                return None
            reason = (
                f"stopped before round {round_no}: its worst case (${worst:.4f}) on top of ${spent:.4f} spent "
                f"could cross --max-cost ${cap:g}"
            )
        self.emit(Event("budget_stop", round_no, data={"reason": reason}))
        return reason

    def bounded(self, seat: Seat, prompt: Prompt) -> Prompt:
        """Under a cost cap every call gets an output bound, so that the worst case the gate priced holds."""
        if self.budget.max_cost_usd is None or prompt.max_tokens is not None:
            return prompt
        return prompt.model_copy(update={"max_tokens": self.output_bound(seat)})

    def _timeout(self, seat: Seat) -> float:
        if self.deadline is None:
            return seat.timeout
        return max(0.01, min(seat.timeout, self.deadline - time.monotonic()))

    async def _attempt(
        self, judge: Judge, seat: Seat, prompt: Prompt, round_no: int
    ) -> tuple[Completion | JudgeError, int]:
        """Call one judge, retrying transient failures: the completion (or the last error), and the retries."""
        retries = 0
        tokens = self._rate_tokens(judge.provider, prompt)
        if self.sampling:  # the debate's own sampling options, over the judge's (`RunArgs.sampling`)
            prompt = prompt.model_copy(update={"sampling": dict(self.sampling)})
        while True:
            self.check_cancelled()
            timeout = self._timeout(seat)
            try:
                async with self.limits.slot(judge.provider, tokens):
                    # on a server of this machine the clock starts when the calls queued there before it are done
                    return await timed_call(self.limits.queues, judge, prompt, timeout, self.deadline), retries
            except TimeoutError:
                error: JudgeError = JudgeTimeout(f"no reply within {timeout:g}s")
            except JudgeError as e:
                error = e
            retry_after = error.retry_after if isinstance(error, TransientJudgeError) else None
            if retry_after is not None:  # the vendor's wait holds back every call to it, not this one only
                self.limits.pause(judge.provider, min(retry_after, self.policy.max_delay))
            retryable = isinstance(error, TransientJudgeError) or (
                isinstance(error, JudgeTimeout) and self.policy.retry_timeouts
            )
            if not retryable or retries >= self.policy.max_retries:
                return error, retries
            wait = self.policy.delay(retries, retry_after)
            retries += 1
            self.emit(Event("retry", round_no, seat.id, {"error": str(error), "wait": round(wait, 3)}))
            await asyncio.sleep(wait)

    def check_cancelled(self) -> None:
        """Before each vendor call: a debate cancelled meanwhile (from any process: the store says so) sends
        nothing more."""
        if self.store.debate_status(self.debate_id) == "cancelled":
            raise DebateCancelled(self.debate_id)

    def _rate_tokens(self, provider: str, prompt: Prompt) -> int:
        """A call's tokens as a tokens-per-minute limit counts them before it is sent: the prompt estimated
        as the budget does, plus its output bound (else a typical reply). Estimated only under such a limit."""
        if self.limits.limit_for(provider).tpm is None:
            return 0
        return tokens_of(prompt.as_text()) + (prompt.max_tokens or TYPICAL_REPLY_TOKENS)

    def replayable(self, key: str, prompt: Prompt) -> CallRecord | None:
        """The stored call a resumed debate may reuse for `key`: completed, and asked the same question.
        The store is asked only for a key the account knows completed (never, in a fresh debate)."""
        if not self.account.completed(key):
            return None
        done = self.store.find_call(self.debate_id, key)
        return done if done is not None and same_question(done, prompt) else None

    async def call(self, seat: Seat, prompt: Prompt, *, key: str, round_no: int, kind: str) -> CallOutcome:
        """One judge-visible call. Never raises for a judge's failure: it returns a failed outcome."""
        done = self.replayable(key, prompt)
        if done is not None:
            return self._done(seat, round_no, kind, outcome_from_record(done))
        prompt = self.bounded(seat, prompt)
        self.emit(Event("call_started", round_no, seat.id, {"kind": kind}))
        started_at, t0 = now_iso(), time.monotonic()
        retries_total = 0
        errors: list[str] = []
        status = "error"
        for n, judge in enumerate(seat.judges):
            with script_place(self.store, self.debate_id, seat.id, n, judge):  # a scripted list keeps its place
                completion, retries = await self._attempt(judge, seat, prompt, round_no)
            retries_total += retries
            if isinstance(completion, JudgeError):
                e = completion
                status = "timeout" if isinstance(e, JudgeTimeout) else "error"
                errors.append(f"{judge.model}: {e}")
                if judge is not seat.judges[-1]:
                    self.emit(Event("fallback", round_no, seat.id, {"from": judge.model, "error": str(e)}))
                continue
            outcome = CallOutcome(
                ok=True,
                text=completion.text,
                usage=completion.usage,
                cost_usd=self.pricing.judge_cost(judge, completion.usage, completion.model or judge.model),
                latency_s=round(time.monotonic() - t0, 4),
                retries=retries_total,
                answered_by=completion.model or judge.model,
                structured=completion.structured,
                finish_reason=completion.finish_reason,
            )
            self._record(seat, prompt, key, round_no, kind, judge, outcome, started_at)
            return self._done(seat, round_no, kind, outcome)
        outcome = CallOutcome(
            ok=False,
            status=status,
            error="; ".join(errors),
            latency_s=round(time.monotonic() - t0, 4),
            retries=retries_total,
        )
        self._record(seat, prompt, key, round_no, kind, seat.judges[-1], outcome, started_at)
        return self._done(seat, round_no, kind, outcome)

    def record_given(self, seat: Seat, prompt: Prompt, *, key: str, round_no: int, kind: str, text: str) -> None:
        """Store a reply the caller gave for a host seat's call, as the call's reply (free, instant)."""
        outcome = CallOutcome(ok=True, text=text, answered_by=seat.judge.model)
        self._record(seat, prompt, key, round_no, kind, seat.judge, outcome, now_iso())
        self._done(seat, round_no, kind, outcome)

    def _done(self, seat: Seat, round_no: int, kind: str, o: CallOutcome) -> CallOutcome:
        """Tell listeners what the call spent as soon as it is known, so a live view can show spend so far."""
        data = {
            "kind": kind,
            "ok": o.ok,
            "input_tokens": o.usage.input_tokens,
            "output_tokens": o.usage.output_tokens,
            "cost_usd": o.cost_usd,
            "latency_s": o.latency_s,
            "replayed": o.replayed,
        }
        self.emit(Event("call_done", round_no, seat.id, data))
        return o

    def _record(
        self,
        seat: Seat,
        prompt: Prompt,
        key: str,
        round_no: int,
        kind: str,
        judge: Judge,
        o: CallOutcome,
        started_at: str,
    ) -> None:
        self.calls_made += 1
        account = self.account  # seeded before this call is in the store, so that it is counted once
        record = CallRecord(
            debate_id=self.debate_id,
            call_key=key,
            round=round_no,
            seat=seat.id,
            kind=kind,
            model=seat.label,
            prompt_json=prompt.model_dump_json(exclude={"json_schema", "sampling"}),
            status=o.status,
            reply=o.text if o.ok else None,
            error=o.error or None,
            answered_by=o.answered_by,
            provider=judge.provider,
            # the store keeps the token counts under Usage's own names; cache writes are in cost_usd alone
            **o.usage.model_dump(exclude={"cache_write_tokens"}),
            latency_s=o.latency_s,
            cost_usd=o.cost_usd,
            retries=o.retries,
            started_at=started_at,
            finished_at=now_iso(),
            structured=o.structured,
            finish_reason=o.finish_reason,
        )
        self.store.record_call(record)
        account.add(record)
