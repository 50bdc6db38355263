"""What a debate may spend, and what its calls are expected to cost: pure rules on plain numbers.

`Budget` caps a debate's money (`--max-cost`) and wall-clock time. Before each round the protocol asks
the engine whether the round's *worst case* still fits: every active judge answering at its output bound,
each also needing a clarification, priced at the dearest model of its seat (a fallback may take over),
on top of what was already spent. A round that might cross the cap is not started; the debate ends with
the rounds it has and says so.

`--dry-run` uses the same arithmetic to print the seed's cost table (1, 2 and all rounds) for the actual
lineup and artifact, with a typical and a worst-case figure, before anything is spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

# A judge's position in the seeds' YAML template runs to about a thousand tokens; the typical estimate
# uses this, the worst case uses the output bound.
TYPICAL_REPLY_TOKENS = 1200
CLARIFY_OVERHEAD_TOKENS = 300  # the clarification request itself, on top of the conversation so far


def tokens_of(text: str) -> int:
    """Approximate tokens of a text (about four characters each in English and code)."""
    return max(1, len(text) // 4)


@dataclass(frozen=True)
class Budget:
    max_cost_usd: float | None = None
    wall_seconds: float | None = None

    def __post_init__(self) -> None:
        if self.max_cost_usd is not None and self.max_cost_usd <= 0:
            raise ValueError("max_cost_usd must be a positive number of dollars")
        if self.wall_seconds is not None and self.wall_seconds <= 0:
            raise ValueError("wall_seconds must be a positive number of seconds")


@dataclass(frozen=True)
class CallCost:
    """One planned call: who, in which round, how big, and what it would cost (None: no known price)."""

    seat: str
    model: str
    round: int
    input_tokens: int
    typical_usd: float | None
    worst_usd: float | None  # the call and a clarification, at the output bound


@dataclass
class Scenario:
    """A row of the seed's cost table: the debate ending after `rounds` rounds."""

    label: str
    rounds: int
    calls: int
    max_clarifications: int
    typical_usd: float | None
    worst_usd: float | None
    input_tokens: int = 0
    unpriced: list[str] = field(default_factory=list)


def _sum(values: Sequence[float | None]) -> float | None:
    return None if any(v is None for v in values) else round(sum(v for v in values if v is not None), 6)


def scenarios(calls: Sequence[CallCost], rounds_allowed: int, final: Sequence[CallCost] = ()) -> list[Scenario]:
    """The seed's table: consensus after round 1, after round 2, and the full debate (plus `final` calls,
    such as the moderator's synthesis, which every scenario makes)."""
    wanted = sorted({1, min(2, rounds_allowed), rounds_allowed})
    out = []
    for n in wanted:
        picked = [c for c in calls if c.round <= n]
        every = [*picked, *final]
        label = "Round 3 (max)" if n == rounds_allowed and n >= 3 else f"Round {n} consensus"
        if n == rounds_allowed and n < 3:
            label = f"Round {n} (max)"
        out.append(
            Scenario(
                label=label,
                rounds=n,
                calls=len(every),
                max_clarifications=len(picked),
                typical_usd=_sum([c.typical_usd for c in every]),
                worst_usd=_sum([c.worst_usd for c in every]),
                input_tokens=sum(c.input_tokens for c in every),
                unpriced=sorted({c.model for c in every if c.typical_usd is None}),
            )
        )
    return out


def over_budget(spent: float, worst_next: float, cap: float) -> bool:
    """True if spending `worst_next` more, after `spent`, could cross the cap."""
    return spent + worst_next > cap + 1e-12
