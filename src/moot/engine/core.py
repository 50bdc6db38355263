"""The engine: runs one call to one seat with retries, fallbacks, limits and accounting, and records it.

A call has a stable key within its debate ("r2/judge-1", "r2/judge-1/clarify"). Before calling, the
engine looks the key up in the store: a call that finished before a crash or kill is replayed from there
and not paid for twice. That is all `moot resume` needs, since protocols are deterministic given replies.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field

from moot.engine.events import Event, EventSink, ignore
from moot.engine.limits import Limits
from moot.engine.pricing import Pricing
from moot.errors import JudgeError, JudgeTimeout, TransientJudgeError
from moot.judges.base import Judge, Seat
from moot.schemas.messages import Completion, Prompt, Usage
from moot.store.db import CallRecord, Store, now_iso


@dataclass(frozen=True)
class RetryPolicy:
    """One policy for every judge: exponential backoff with full jitter, honouring Retry-After."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 30.0
    retry_timeouts: bool = False

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay)
        return random.uniform(0, min(self.max_delay, self.base_delay * 2**attempt))


@dataclass
class CallOutcome:
    ok: bool
    text: str = ""
    status: str = "ok"  # "ok" | "timeout" | "error"
    error: str = ""
    usage: Usage = field(default_factory=Usage)
    cost_usd: float | None = 0.0
    latency_s: float = 0.0
    retries: int = 0
    answered_by: str = ""
    replayed: bool = False


class Engine:
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
    ) -> None:
        self.store = store
        self.debate_id = debate_id
        self.policy = policy or RetryPolicy()
        self.limits = limits or Limits()
        self.pricing = pricing or Pricing()
        self.emit: EventSink = on_event or ignore
        self.deadline = deadline  # time.monotonic() by which the whole debate must end
        self.calls_made = 0  # real (not replayed) calls in this run

    def _timeout(self, seat: Seat) -> float:
        if self.deadline is None:
            return seat.timeout
        return max(0.01, min(seat.timeout, self.deadline - time.monotonic()))

    async def _attempt(self, judge: Judge, seat: Seat, prompt: Prompt, round_no: int) -> tuple[Completion, int]:
        """Call one judge, retrying transient failures. Returns the completion and the retries spent."""
        retries = 0
        while True:
            timeout = self._timeout(seat)
            try:
                async with self.limits.slot(judge.provider):
                    async with asyncio.timeout(timeout):
                        return await judge.complete(prompt, timeout=timeout), retries
            except TimeoutError:
                error: JudgeError = JudgeTimeout(f"no reply within {timeout:g}s")
            except JudgeError as e:
                error = e
            retryable = isinstance(error, TransientJudgeError) or (
                isinstance(error, JudgeTimeout) and self.policy.retry_timeouts
            )
            if not retryable or retries >= self.policy.max_retries:
                raise error
            retry_after = error.retry_after if isinstance(error, TransientJudgeError) else None
            wait = self.policy.delay(retries, retry_after)
            retries += 1
            self.emit(Event("retry", round_no, seat.id, {"error": str(error), "wait": round(wait, 3)}))
            await asyncio.sleep(wait)

    async def call(self, seat: Seat, prompt: Prompt, *, key: str, round_no: int, kind: str) -> CallOutcome:
        """One judge-visible call. Never raises for a judge's failure: it returns a failed outcome."""
        done = self.store.find_call(self.debate_id, key)
        if done is not None:
            return _outcome_from_record(done)
        started_at, t0 = now_iso(), time.monotonic()
        retries_total = 0
        errors: list[str] = []
        status = "error"
        for judge in seat.judges:
            try:
                completion, retries = await self._attempt(judge, seat, prompt, round_no)
            except JudgeError as e:
                retries_total += getattr(e, "retries", 0)
                status = "timeout" if isinstance(e, JudgeTimeout) else "error"
                errors.append(f"{judge.model}: {e}")
                if judge is not seat.judges[-1]:
                    self.emit(Event("fallback", round_no, seat.id, {"from": judge.model, "error": str(e)}))
                continue
            retries_total += retries
            outcome = CallOutcome(
                ok=True,
                text=completion.text,
                usage=completion.usage,
                cost_usd=self.pricing.cost(judge.provider, completion.model or judge.model, completion.usage),
                latency_s=round(time.monotonic() - t0, 4),
                retries=retries_total,
                answered_by=completion.model or judge.model,
            )
            self._record(seat, prompt, key, round_no, kind, judge, outcome, started_at)
            return outcome
        outcome = CallOutcome(
            ok=False,
            status=status,
            error="; ".join(errors),
            latency_s=round(time.monotonic() - t0, 4),
            retries=retries_total,
        )
        self._record(seat, prompt, key, round_no, kind, seat.judges[-1], outcome, started_at)
        return outcome

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
        self.store.record_call(
            CallRecord(
                debate_id=self.debate_id,
                call_key=key,
                round=round_no,
                seat=seat.id,
                kind=kind,
                model=seat.label,
                prompt_json=prompt.model_dump_json(exclude={"json_schema"}),
                status=o.status,
                reply=o.text if o.ok else None,
                error=o.error or None,
                answered_by=o.answered_by,
                provider=judge.provider,
                input_tokens=o.usage.input_tokens,
                output_tokens=o.usage.output_tokens,
                cached_tokens=o.usage.cached_tokens,
                reasoning_tokens=o.usage.reasoning_tokens,
                latency_s=o.latency_s,
                cost_usd=o.cost_usd,
                retries=o.retries,
                started_at=started_at,
                finished_at=now_iso(),
            )
        )


def _outcome_from_record(r: CallRecord) -> CallOutcome:
    return CallOutcome(
        ok=r.status == "ok",
        text=r.reply or "",
        status=r.status,
        error=r.error or "",
        usage=Usage(
            input_tokens=r.input_tokens,
            output_tokens=r.output_tokens,
            cached_tokens=r.cached_tokens,
            reasoning_tokens=r.reasoning_tokens,
        ),
        cost_usd=r.cost_usd,
        latency_s=r.latency_s,
        retries=r.retries,
        answered_by=r.answered_by,
        replayed=True,
    )
