"""Spend of a debate, computed from its call records (so a resumed debate counts what it paid before)."""

from __future__ import annotations

from collections.abc import Sequence

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


def spend_from_calls(
    calls: Sequence[CallRecord], *, wall_seconds: float = 0.0, final_name: str = "synthesis"
) -> Spend:
    """`final_name` labels round 0, the step after the last round (each protocol names its own)."""
    spend = Spend(wall_seconds=round(wall_seconds, 4))
    for c in calls:
        _add(spend, c)
        spend.retries += c.retries
        if c.kind == "clarify":
            spend.clarifications += 1
        elif c.kind == "moderator":
            spend.moderator_calls += 1
        else:
            spend.judge_calls += 1
        if c.cost_usd is None and c.status == "ok":
            name = c.answered_by or c.model
            if name not in spend.unpriced_models:
                spend.unpriced_models.append(name)
        _add(spend.per_judge.setdefault(c.seat, SpendLine()), c)
        _add(spend.per_round.setdefault(f"round_{c.round}" if c.round else final_name, SpendLine()), c)
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
