"""What a request says to the vendor's prompt cache, per route.

A debate's calls share a long prefix (the rules, the rubric, the artifact: the prompt's system text), and
vendors serve a byte-identical prefix from their cache at a tenth (Anthropic, Gemini) to a half (OpenAI)
of the input price. Some routes cache only when asked:

- Anthropic's own API: `cache_control` on the system block (anthropic_native);
- Claude or Gemini through OpenRouter: the system message as a content part carrying the same
  `cache_control`, which the gateway passes on to the model's vendor;
- OpenAI's own API: caching is automatic above 1,024 tokens, and `prompt_cache_key` keeps calls with the
  same prefix on the same cache (the key is a hash of that prefix, so it names nothing of the debate).

Other OpenAI-compatible servers (llama.cpp, vLLM, Ollama, a proxy of the user's own) get nothing extra:
the local ones reuse a prefix on their own, and some refuse a field they do not know.
A judge's `prompt_cache: false` sends no directive at all.
"""

from __future__ import annotations

import hashlib
from typing import Any

from moot.judges.families import family_of

EPHEMERAL = {"type": "ephemeral"}
GATEWAYS = frozenset({"openrouter"})  # the gateways known to pass `cache_control` on to the model's vendor
GATEWAY_CACHED_FAMILIES = frozenset({"anthropic", "gemini"})  # the makers whose gateways pass cache_control on


def system_message(system: str, *, provider: str, model: str, enabled: bool) -> dict[str, Any]:
    """The chat-completions system message: a plain string, or a cached content part where the route takes
    `cache_control` (a Claude or Gemini model reached through a gateway such as OpenRouter)."""
    if enabled and provider in GATEWAYS and family_of(model, provider) in GATEWAY_CACHED_FAMILIES:
        return {"role": "system", "content": [{"type": "text", "text": system, "cache_control": EPHEMERAL}]}
    return {"role": "system", "content": system}


def shares_cache(provider: str, model: str, base_url: str | None, *, enabled: bool) -> bool:
    """Whether calls on this OpenAI-compatible route share a vendor's cache: OpenAI's own API, or a gateway
    that passes `cache_control` on (the routes `system_message` and `prompt_cache_key` mark)."""
    if not enabled:
        return False
    if provider == "openai":
        return base_url is None
    return provider in GATEWAYS and family_of(model, provider) in GATEWAY_CACHED_FAMILIES


def prompt_cache_key(system: str, *, provider: str, base_url: str | None, enabled: bool) -> str | None:
    """OpenAI's `prompt_cache_key` for its own API (a hash of the shared prefix); None on any other route."""
    if not enabled or provider != "openai" or base_url is not None:
        return None
    return "moot-" + hashlib.sha256(system.encode("utf-8")).hexdigest()[:24]


def anthropic_system(system: str, *, enabled: bool) -> list[dict[str, Any]]:
    """Anthropic's system blocks: one text block, cached unless the judge said `prompt_cache: false`."""
    block: dict[str, Any] = {"type": "text", "text": system}
    if enabled:
        block["cache_control"] = EPHEMERAL
    return [block]
