"""Spend of a debate, computed from its call records (so a resumed debate counts what it paid before)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from moot.schemas.spend import Spend, SpendLine
from moot.store.db import CallRecord


def _add(line: SpendLine, c: CallRecord) -> None:
    line.calls += 1
    line.input_tokens += c.input_tokens
    line.output_tokens += c.output_tokens
    line.cached_tokens += c.cached_tokens
    line.reasoning_tokens += c.reasoning_tokens
    line.seconds = round(line.seconds + c.latency_s, 4)
    line.cost_usd = round(line.cost_usd + (c.cost_usd or 0.0), 8)


def spend_from_calls(calls: Sequence[CallRecord], *, wall_seconds: float = 0.0, final_name: str = "synthesis") -> Spend:
    """`final_name` labels round 0, the step after the last round (each protocol names its own)."""
    spend = Spend(wall_seconds=round(wall_seconds, 4))
    for c in calls:
        _add(spend, c)
        spend.retries += c.retries
        if c.kind == "clarify":
            spend.clarifications += 1
        elif c.kind in ("moderator", "rubric"):  # not a judge's: the synthesis, `--criteria auto`'s rubric
            spend.moderator_calls += 1
        else:
            spend.judge_calls += 1
        if c.cost_usd is None and c.status == "ok":
            name = c.answered_by or c.model
            if name not in spend.unpriced_models:
                spend.unpriced_models.append(name)
        _add(spend.per_judge.setdefault(c.seat, SpendLine()), c)
        step = f"round_{c.round}" if c.round else "rubric" if c.seat == "rubric" else final_name
        _add(spend.per_round.setdefault(step, SpendLine()), c)
    # Calls are recorded as they finish; list judges and rounds in their natural order instead.
    spend.per_judge = dict(sorted(spend.per_judge.items(), key=lambda kv: _natural(kv[0])))
    spend.per_round = dict(sorted(spend.per_round.items(), key=lambda kv: _natural(kv[0])))
    return spend


def _natural(name: str) -> tuple[str, int, str]:
    """'judge-10' after 'judge-9'; 'synthesis' after the rounds."""
    head, _, tail = name.rpartition("-") if "-" in name else name.rpartition("_")
    if tail.isdigit():
        return (head, int(tail), "")
    return ("~" + name, 0, name)


class SpendAccount:
    """A debate's calls as they count for spend, kept as they complete: what `Store.calls` would return,
    without reading every call back (prompts included) from the store at each round gate and at the end.

    Seeded once from the store, so that a resumed debate counts what it paid before. The same rule as
    `Store.calls`: every completed attempt counts, and a failed one only while it is the latest of its
    key (a failure asked again cost nothing, and one call is not counted twice). Records are kept
    without their prompt and reply, which spend does not need.
    """

    def __init__(self, stored: Sequence[CallRecord] = ()) -> None:
        self._calls: list[CallRecord] = []
        self._completed: set[str] = set()
        for c in stored:
            self.add(c)

    def add(self, call: CallRecord) -> None:
        """Count an attempt just recorded in the store (its key's latest)."""
        self._calls = [c for c in self._calls if c.status == "ok" or c.call_key != call.call_key]
        self._calls.append(replace(call, prompt_json="", reply=None, error=None))
        if call.status == "ok":
            self._completed.add(call.call_key)

    def completed(self, call_key: str) -> bool:
        """Whether the store holds a completed attempt at this key (one a resumed debate may replay)."""
        return call_key in self._completed

    def spend(self, *, wall_seconds: float, final_name: str = "synthesis") -> Spend:
        return spend_from_calls(self._calls, wall_seconds=wall_seconds, final_name=final_name)

    def spent(self) -> float:
        return round(sum(c.cost_usd or 0.0 for c in self._calls), 8)
