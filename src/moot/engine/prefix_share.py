"""What vendors' prompt caches can serve of a debate, read from its rendered prompts before anything is sent.

OpenAI, Anthropic and Gemini serve at a lower rate the longest prefix a call shares byte for byte with an
earlier call to the same model, once that earlier call has been processed: so a call reuses only calls of
earlier steps (a step's calls go out together), on its own model. No vendor caches a prefix under 1,024
tokens, and OpenAI's cache grows in 128-token steps. The dry run shows two shares of the input tokens
after the first call: the share that repeats an earlier call's prefix (what the prompt layout makes
reusable), and the share a cache is expected to serve (the first, less what falls under those rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from moot.schemas.messages import Prompt

MIN_CACHED_TOKENS = 1024  # the shortest prefix any of the three vendors caches
CACHE_STEP_TOKENS = 128  # OpenAI's cache grows in steps of this many tokens
CHARS_PER_TOKEN = 4  # as `budget.tokens_of` counts


def cache_text(prompt: Prompt) -> str:
    """A prompt as a prefix cache compares it: the system text, then each message with its role."""
    return "\x00".join([prompt.system, *(f"{m.role}:{m.content}" for m in prompt.messages)])


def cacheable(tokens: int) -> int:
    """The tokens a vendor's cache serves of a shared prefix of `tokens` tokens."""
    if tokens < MIN_CACHED_TOKENS:
        return 0
    return MIN_CACHED_TOKENS + (tokens - MIN_CACHED_TOKENS) // CACHE_STEP_TOKENS * CACHE_STEP_TOKENS


def _common(a: str, b: str) -> int:
    """The length of the prefix two texts share (found by halving: the texts are long, their prefixes too)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


@dataclass
class PrefixLedger:
    """The calls of a debate in the order they go out, each with the prefix it repeats of an earlier one."""

    _seen: list[tuple[str, int, str]] = field(default_factory=list)

    def add(self, model: str, step: int, prompt: Prompt) -> tuple[int, int]:
        """(repeated, cached) tokens of a call to `model` in step `step`: the longest prefix it shares with
        a call of an earlier step to the same model, and what of it a cache serves."""
        text = cache_text(prompt)
        earlier = [t for m, s, t in self._seen if m == model and s < step]
        shared = max((_common(text, t) for t in earlier), default=0)
        self._seen.append((model, step, text))
        repeated = shared // CHARS_PER_TOKEN
        return repeated, cacheable(repeated)


def prefix_shares(calls: Sequence[Any]) -> dict[str, Any]:
    """The dry run's shares, over the planned calls after the first (each with `input_tokens`,
    `repeated_tokens` and `cached_tokens`): what repeats an earlier call's prefix, and what a cache serves."""
    later = list(calls[1:])
    total = sum(c.input_tokens for c in later)
    repeated = sum(c.repeated_tokens for c in later)
    cached = sum(c.cached_tokens for c in later)
    return {
        "input_tokens_after_first": total,
        "repeated_prefix_tokens": repeated,
        "repeated_prefix_share": round(repeated / total, 3) if total else 0.0,
        "expected_cached_tokens": cached,
        "expected_cached_share": round(cached / total, 3) if total else 0.0,
        "min_cached_tokens": MIN_CACHED_TOKENS,
    }
