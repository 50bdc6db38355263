"""Cost in USD per call from the offline `genai-prices` table, with overrides from config.

Local and scripted judges cost nothing; a model the table does not know costs `None` (shown as
unpriced), never a made-up number.

And what a debate spent: its calls summed into `Spend` (`spend_from_calls`), and the running account a batch
keeps as calls complete (`SpendAccount`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import TYPE_CHECKING

from moot.judges.providers import PROVIDERS, is_loopback
from moot.schemas.messages import Usage
from moot.schemas.spend import Spend, SpendLine
from moot.store.db import CallRecord


def _add(line: SpendLine, c: CallRecord) -> None:
    line.calls += 1
    line.input_tokens += c.input_tokens
    line.output_tokens += c.output_tokens
    line.cached_tokens += c.cached_tokens
    line.cache_hits += 1 if c.cached_tokens > 0 else 0
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
        # written to the cache: Anthropic bills it above the input rate (the table knows each model's rate)
        cache_write_tokens=min(usage.cache_write_tokens, usage.input_tokens - usage.cached_tokens) or None,
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
