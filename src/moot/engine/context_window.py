"""`context_tokens:`: a step whose prompt cannot fit a judge's context window is refused before it is sent.

Checked before every step of a run and of a dry run (the same walk), so that a window too small is bad
input (one line, exit 2), not a judge dropped after the calls before it were paid for. Sizes are the
engine's estimate (four characters a token) plus the seat's output bound.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.engine.budget import tokens_of
from moot.engine.core import Engine
from moot.errors import UsageError
from moot.judges.base import Seat
from moot.schemas.messages import Prompt


def context_problem(seat: Seat, prompt: Prompt, round_no: int, output_bound: int) -> str | None:
    """Why a call cannot fit the seat's `context_tokens` (its prompt plus its output bound), or None."""
    window = seat.spec.get("context_tokens")
    if not isinstance(window, int):
        return None
    prompt_tokens = tokens_of(prompt.as_text())
    if prompt_tokens + output_bound <= window:
        return None
    return (
        f"judge '{seat.label}' ({seat.id}): the round {round_no} prompt is ~{prompt_tokens} tokens and its "
        f"output bound {output_bound}, more than its context_tokens {window} "
        "(raise context_tokens, lower max_tokens or send less context)"
    )


def check_context(engine: Engine, calls: Sequence[tuple[Seat, Prompt]], round_no: int) -> None:
    """Refuse a step (UsageError) whose prompt cannot fit a judge's context window."""
    for seat, prompt in calls:
        problem = context_problem(seat, prompt, round_no, engine.output_bound(seat))
        if problem:
            raise UsageError(problem)
