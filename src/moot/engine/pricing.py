"""Cost in USD per call from the offline `genai-prices` table, with overrides from config.

Local and scripted judges cost nothing; a model the table does not know costs `None` (shown as
unpriced), never a made-up number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from moot.judges.providers import PROVIDERS, is_loopback
from moot.schemas.messages import Usage

if TYPE_CHECKING:
    from genai_prices.types import ModelInfo, Provider

FREE_PROVIDERS = frozenset({"scripted", "function", "cli", "host"})


@dataclass(frozen=True)
class PriceOverride:
    """USD per million tokens, for a model the offline table does not know (or that you pay differently)."""

    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float | None = None

    def __post_init__(self) -> None:
        rates = (self.input_per_mtok, self.output_per_mtok, self.cached_input_per_mtok or 0.0)
        if any(not isinstance(r, int | float) or r < 0 for r in rates):
            raise ValueError("prices must be numbers of dollars per million tokens, not negative")


@dataclass
class Pricing:
    overrides: dict[str, PriceOverride] = field(default_factory=dict)

    def judge_cost(self, judge: object, usage: Usage, model: str | None = None) -> float | None:
        """What a call of `judge` cost: as `cost`, except that a judge on the user's own server on this
        machine (an `api_base` on a loopback address) costs nothing, as the local presets do, unless the
        judges file prices its model."""
        provider, name = str(getattr(judge, "provider", "")), model or str(getattr(judge, "model", ""))
        own = provider == "custom" and is_loopback(getattr(judge, "base_url", None))
        if own and name not in self.overrides and f"{provider}/{name}" not in self.overrides:
            return 0.0
        return self.cost(provider, name, usage)

    def cost(self, provider: str, model: str, usage: Usage) -> float | None:
        override = self.overrides.get(model) or self.overrides.get(f"{provider}/{model}")
        if override is not None:
            cached = min(usage.cached_tokens, usage.input_tokens)
            cached_rate = override.cached_input_per_mtok
            if cached_rate is None:
                cached_rate = override.input_per_mtok
            return round(
                (
                    (usage.input_tokens - cached) * override.input_per_mtok
                    + cached * cached_rate
                    + usage.output_tokens * override.output_per_mtok
                )
                / 1e6,
                8,
            )
        prov = PROVIDERS.get(provider)
        if provider in FREE_PROVIDERS or (prov is not None and prov.local):
            return 0.0
        return _table_cost(prov.price_provider if prov else None, model, usage)


def _table_cost(price_provider: str | None, model: str, usage: Usage) -> float | None:
    entry = _table_entry(price_provider, model)
    if entry is None:
        return None
    from genai_prices import Usage as PriceUsage

    provider, info = entry
    price_usage = PriceUsage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=min(usage.cached_tokens, usage.input_tokens) or None,
    )
    try:
        # what `genai_prices.calc_price` does once it has found the model: the price in force now
        result = info.calc_price(price_usage, provider)
    except Exception:  # usage the model's prices cannot price
        return None
    return round(float(result.total_price), 8)


@cache
def _table_entry(price_provider: str | None, model: str) -> tuple[Provider, ModelInfo] | None:
    """The table's provider and model for a model name, looked up once per process, misses included.

    `calc_price` searches the whole table on every call, and a miss (a judge on the user's own
    endpoint, whose models the table does not know) is never remembered by the table itself.
    """
    from genai_prices.data_snapshot import get_snapshot

    try:
        return get_snapshot().find_provider_model(model, None, price_provider, None)
    except Exception:  # the table does not know this model (LookupError and friends)
        return None
