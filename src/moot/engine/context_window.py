"""`context_tokens:`: a step whose prompt cannot fit a judge's context window is refused before it is sent.

Checked for every step of the debate before round 1 is sent (the dry run's walk, `preflight`), so that a
window too small is bad input (one line, exit 2), not a judge dropped after the calls before it were paid
for; and again before each step of the run, with its real prompts: a step that still does not fit is a
resumable stop (`ContextOverflow`, exit 4). Sizes are the engine's estimate (`budget.prompt_tokens`, the one
the dry run shows) plus the seat's output bound.

The same walk checks each judge's `max_tokens` against the shortest reply its schemas allow (every list at
its fewest items, every text at the fewest characters the fitting keeps): a bound below it would cut the
reply off, so it is refused before any call, naming the judge and the minimum.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.engine.budget import prompt_tokens
from moot.engine.core import Engine
from moot.errors import UsageError
from moot.judges.base import Seat
from moot.schemas.messages import Prompt
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
