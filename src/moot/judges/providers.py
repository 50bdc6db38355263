"""Which vendor a model name belongs to, and how to reach it: one table, extendable from config.

A judge is named `provider/model` (`openai/gpt-5.2`, `ollama/llama3.3`) or by a bare known name
(`gpt-5.2`, `grok-4`, `haiku`) that the alias table resolves. A judge with `api_base` is an
OpenAI-compatible endpoint and its model name is sent as given.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from moot.errors import UsageError
from moot.schemas.config import JudgeSpec


@dataclass(frozen=True)
class Provider:
    name: str
    wire: str  # "openai" (chat completions), "anthropic" (messages), "gemini" (generateContent)
    base_url: str | None
    key_envs: tuple[str, ...]
    price_provider: str | None = None  # genai-prices provider id
    local: bool = False  # runs on the user's machine: no key needed, costs nothing


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", "openai", None, ("OPENAI_API_KEY",), "openai"),
    "xai": Provider("xai", "openai", "https://api.x.ai/v1", ("XAI_API_KEY",), "x-ai"),
    "gemini": Provider(
        "gemini",
        "openai",
        "https://generativelanguage.googleapis.com/v1beta/openai/",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "google",
    ),
    "anthropic": Provider("anthropic", "anthropic", None, ("ANTHROPIC_API_KEY",), "anthropic"),
    "openrouter": Provider(
        "openrouter", "openai", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), "openrouter"
    ),
    "ollama": Provider("ollama", "openai", "http://127.0.0.1:11434/v1", (), None, local=True),
    "vllm": Provider("vllm", "openai", "http://127.0.0.1:8000/v1", (), None, local=True),
    "llamacpp": Provider("llamacpp", "openai", "http://127.0.0.1:8080/v1", (), None, local=True),
    "lmstudio": Provider("lmstudio", "openai", "http://127.0.0.1:1234/v1", (), None, local=True),
}

ALIASES: dict[str, str] = {
    "gpt-5.2": "openai/gpt-5.2",
    "gpt-5": "openai/gpt-5",
    "gpt-5-mini": "openai/gpt-5-mini",
    "grok-4": "xai/grok-4",
    "gemini-3-pro-preview": "gemini/gemini-3-pro-preview",
    "gemini-2.5-pro": "gemini/gemini-2.5-pro",
    "gemini-2.5-flash": "gemini/gemini-2.5-flash",
    "haiku": "anthropic/claude-haiku-4-5",
    "sonnet": "anthropic/claude-sonnet-4-5",
    "opus": "anthropic/claude-opus-4-1",
}

_PREFIX_GUESSES = (
    ("gpt-", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("claude", "anthropic"),
    ("gemini", "gemini"),
    ("grok", "xai"),
)


@dataclass(frozen=True)
class Resolved:
    provider: Provider
    model: str  # as sent to the provider
    base_url: str | None


def resolve(spec: JudgeSpec, aliases: dict[str, str] | None = None) -> Resolved:
    """Resolve a judge spec to a provider, a model name and a base URL. Raises UsageError if unknown."""
    table = {**ALIASES, **(aliases or {})}
    name = table.get(spec.model, spec.model)
    if spec.api_base:
        prov = PROVIDERS.get(spec.provider or "")
        prefix, _, rest = name.partition("/")
        model = rest if prefix in PROVIDERS and rest and spec.provider is None else name
        base = Provider(spec.provider or "custom", "openai", spec.api_base, (), None)
        return Resolved(prov or base, model if prov else name, spec.api_base)
    prefix, sep, rest = name.partition("/")
    if sep and prefix in PROVIDERS:
        prov = PROVIDERS[prefix]
        return Resolved(prov, rest, prov.base_url)
    if spec.provider:
        if spec.provider not in PROVIDERS:
            raise UsageError(f"judge '{spec.label}': unknown provider '{spec.provider}'")
        prov = PROVIDERS[spec.provider]
        return Resolved(prov, name, prov.base_url)
    for start, pname in _PREFIX_GUESSES:
        if name.startswith(start):
            prov = PROVIDERS[pname]
            return Resolved(prov, name, prov.base_url)
    raise UsageError(
        f"judge '{spec.label}': cannot tell which provider serves model '{spec.model}' "
        "(write it as provider/model, or give api_base)"
    )


def api_key_for(spec: JudgeSpec, resolved: Resolved) -> str | None:
    """The judge's credential: `api_key`, else `api_key_env`, else the vendor's usual variables."""
    if spec.api_key:
        return spec.api_key
    if spec.api_key_env:
        return os.environ.get(spec.api_key_env) or None
    for env in resolved.provider.key_envs:
        if os.environ.get(env):
            return os.environ[env]
    return None


def key_hint(spec: JudgeSpec, resolved: Resolved) -> str:
    names = (spec.api_key_env,) if spec.api_key_env else resolved.provider.key_envs
    return " or ".join(n for n in names if n) or "api_key_env"
