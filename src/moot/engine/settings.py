"""The judges file's call settings (`retry:`, `limits:`, `pricing:`, `budget:`) as engine objects.

Each block is validated here, so that a typo or a bad value is a one-line usage error before any call:

    retry:   {max_retries: 3, base_delay: 0.5, max_delay: 30, retry_timeouts: false}
    limits:  {default: {concurrency: 4}, anthropic: {concurrency: 2, rpm: 50, tpm: 30000}}
    pricing: {my-local-model: {input_per_mtok: 0, output_per_mtok: 0}}
    budget:  {max_cost_usd: 0.50, wall_seconds: 900}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from moot.engine.budget import Budget
from moot.engine.calls import RetryPolicy
from moot.engine.limits import Limits, ProviderLimit
from moot.engine.pricing import PriceOverride, Pricing
from moot.errors import UsageError

T = TypeVar("T")


def _make(kind: Callable[..., T], value: Any, where: str) -> T:
    if not isinstance(value, dict):
        raise UsageError(f"{where} must be a mapping")
    try:
        return kind(**value)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{where}: {e}") from None


def retry_policy(block: dict[str, Any], where: str = "retry") -> RetryPolicy | None:
    return _make(RetryPolicy, block, where) if block else None


def limits(block: dict[str, Any], where: str = "limits") -> Limits | None:
    """The limiter for a `limits:` block: one per process for each distinct block, so that every debate
    started from the same judges file (a batch's) shares its providers' limits."""
    if not block:
        return None
    per = {str(k): _make(ProviderLimit, v, f"{where}.{k}") for k, v in block.items() if k != "default"}
    default = _make(ProviderLimit, block["default"], f"{where}.default") if "default" in block else None
    key = (default, tuple(sorted(per.items())))
    shared = _SHARED_LIMITS.get(key)
    if shared is None:
        shared = _SHARED_LIMITS[key] = Limits(default=default, per_provider=per)
    return shared


_SHARED_LIMITS: dict[tuple[ProviderLimit | None, tuple[tuple[str, ProviderLimit], ...]], Limits] = {}


def pricing(block: dict[str, Any], where: str = "pricing") -> Pricing | None:
    if not block:
        return None
    return Pricing(overrides={str(k): _make(PriceOverride, v, f"{where}.{k}") for k, v in block.items()})


def budget(block: dict[str, Any], where: str = "budget") -> Budget | None:
    return _make(Budget, block, where) if block else None
