"""What a debate spent: calls, tokens, seconds and money, in total and per judge and round."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SpendLine(BaseModel):
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_hits: int = 0  # calls whose input the vendor's prompt cache served in part (cached_tokens > 0)
    reasoning_tokens: int = 0
    seconds: float = 0.0
    cost_usd: float = 0.0


class Spend(SpendLine):
    """Totals plus breakdowns. `calls` counts judge-visible calls (a retry of the same call is not a new
    call); `retries` counts the transport retries behind them."""

    judge_calls: int = 0
    clarifications: int = 0
    moderator_calls: int = 0
    retries: int = 0
    wall_seconds: float = 0.0
    unpriced_models: list[str] = Field(default_factory=list)
    per_judge: dict[str, SpendLine] = Field(default_factory=dict)
    per_round: dict[str, SpendLine] = Field(default_factory=dict)
