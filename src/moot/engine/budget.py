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

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from moot.engine.pricing import PriceOverride, Pricing
from moot.judges.base import Seat
from moot.schemas.messages import Prompt
from moot.schemas.reply_bounds import portable

# A judge's position in the seeds' YAML template runs to about a thousand tokens; the typical estimate
# uses this, the worst case uses the output bound.
TYPICAL_REPLY_TOKENS = 1200
# Characters per token of a prompt as a grammar server's model counts it, chat template included: measured on
# SmolLM2-135M behind llama-cpp-python (18 evaluate calls of rounds 1 and 2: chars/4 came out 11.5% under
# the server's prompt_tokens, chars/3.5 within 2% over).
GRAMMAR_CHARS_PER_TOKEN = 3.5
# A grammar server's reply, against its output bound: the schema is fitted under 85% of it, and SmolLM2's
# replies took about 40% (210-350 tokens at a 512-token bound, 245-301 at the 768 default). With it, the dry
# run's round-2 prompts came within 5% of the server's count (1,693 against 1,785; 2,046 against 2,002).
GRAMMAR_TYPICAL_SHARE = 0.4
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
    phase: str = ""  # where a protocol has phases within a round (challenge: "opening", "rebuttal", ...)
    host: bool = False  # a host seat's: its caller replies, and a reply moot cannot read is refused, never clarified
    repeated_tokens: int = 0  # of its input, the prefix an earlier step's call to its model sent (`prefix_share`)
    cached_tokens: int = 0  # of those, what a vendor's cache is expected to serve (and the typical cost prices so)
    max_tokens: int | None = None  # its output bound: the most a reply of its phase may take


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


def scenario(label: str, rounds: int, picked: Sequence[CallCost], final: Sequence[CallCost] = ()) -> Scenario:
    """One row of the cost table: the debate making the `picked` calls (each may need a clarification)
    and the `final` ones."""
    every = [*picked, *final]
    return Scenario(
        label=label,
        rounds=rounds,
        calls=len(every),
        max_clarifications=sum(1 for c in picked if not c.host),
        typical_usd=_sum([c.typical_usd for c in every]),
        worst_usd=_sum([c.worst_usd for c in every]),
        input_tokens=sum(c.input_tokens for c in every),
        unpriced=sorted({c.model for c in every if c.typical_usd is None}),
    )


def scenarios(calls: Sequence[CallCost], rounds_allowed: int, final: Sequence[CallCost] = ()) -> list[Scenario]:
    """The seed's table: consensus after round 1, after round 2, and the full debate (plus `final` calls,
    such as the moderator's synthesis, which every scenario makes)."""
    wanted = sorted({1, min(2, rounds_allowed), rounds_allowed})
    out = []
    for n in wanted:
        label = "Round 3 (max)" if n == rounds_allowed and n >= 3 else f"Round {n} consensus"
        if n == rounds_allowed and n < 3:
            label = f"Round {n} (max)"
        out.append(scenario(label, n, [c for c in calls if c.round <= n], final))
    return out


def over_budget(spent: float, worst_next: float, cap: float) -> bool:
    """True if spending `worst_next` more, after `spent`, could cross the cap."""
    return spent + worst_next > cap + 1e-12


# The effective budget, and the price overrides that let it be kept, are stored with the debate's
# request under these keys, so that `moot resume` keeps the cap the debate was started with (request
# models ignore the extra keys). Both are plain numbers: nothing secret.
STORED_BUDGET_KEY = "run_budget"
STORED_PRICING_KEY = "run_pricing"


def stored_settings(budget: Budget | None, pricing: Pricing | None) -> dict[str, Any]:
    """What to store beside a request: the budget and the price overrides, when there are any."""
    out: dict[str, Any] = {}
    if budget is not None and (budget.max_cost_usd is not None or budget.wall_seconds is not None):
        out[STORED_BUDGET_KEY] = asdict(budget)
    if pricing is not None and pricing.overrides:
        out[STORED_PRICING_KEY] = {k: asdict(v) for k, v in pricing.overrides.items()}
    return out


def stored_budget(request: Mapping[str, Any]) -> Budget | None:
    """The budget a stored request was started with (None for a debate without one, or an older one)."""
    data = request.get(STORED_BUDGET_KEY)
    if not isinstance(data, Mapping):
        return None
    try:
        return Budget(max_cost_usd=_number(data.get("max_cost_usd")), wall_seconds=_number(data.get("wall_seconds")))
    except ValueError:
        return None


def stored_pricing(request: Mapping[str, Any], given: Pricing | None = None) -> Pricing | None:
    """The price overrides a stored request was started with, under those `given` again (which win)."""
    data = request.get(STORED_PRICING_KEY)
    overrides: dict[str, PriceOverride] = {}
    if isinstance(data, Mapping):
        for model, rates in data.items():
            try:
                overrides[str(model)] = PriceOverride(**rates)
            except (TypeError, ValueError):
                continue
    if given is not None:
        overrides.update(given.overrides)
    return Pricing(overrides=overrides) if overrides else given


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def prompt_tokens(seat: Seat, prompt: Prompt) -> int:
    """A prompt's input tokens as the seat's server will count them, estimated before it is sent: what the dry
    run shows and what the context check adds the output bound to. Vendors count the reply schema as input
    (their clouds are sent it); a grammar server turns it into a grammar instead, and its models' tokenizers
    (with the chat template) make more tokens of a prompt: `GRAMMAR_CHARS_PER_TOKEN`, measured."""
    if getattr(seat.judge, "enforced", False):
        return math.ceil(len(prompt.as_text()) / GRAMMAR_CHARS_PER_TOKEN)
    tokens = tokens_of(prompt.as_text())
    if prompt.json_schema:
        tokens += tokens_of(json.dumps(portable(prompt.json_schema)))
    return tokens
