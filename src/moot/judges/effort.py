"""How hard a reasoning model thinks (`reasoning_effort:`), and fields a provider takes that moot does not
name (`extra_body:`), per provider (issue 30 §6).

A judge entry writes one word, as the vendors name the levels (`minimal`, `low`, `medium`, `high`,
`xhigh`); each provider gets it in its own field:

| provider | field | levels |
|---|---|---|
| OpenAI, OpenRouter, any OpenAI-compatible server | `reasoning_effort` | minimal, low, medium, high, xhigh |
| xAI | `reasoning_effort` | low, high |
| Anthropic | `thinking: {type: enabled, budget_tokens}`, the bound raised by it | low 1,024 ... xhigh 32,768 |
| Gemini 3 | `thinking_config.thinking_level` | minimal, low, medium, high, xhigh |
| Gemini 2.5 and older | `thinking_config.thinking_budget` | minimal 128; low 1,024; medium 8,192; high 24,576 |
| codex (agent CLI) | `-c model_reasoning_effort=LEVEL` | minimal, low, medium, high, xhigh |

A level the provider does not take, or a judge that takes none (another agent CLI, a scripted judge), is
refused when the panel is built, before any call. `extra_body:` is a mapping passed through the official
SDK's own extra-body parameter (openai's and anthropic's `extra_body`, google-genai's
`HttpOptions.extra_body`); agent CLIs and scripted judges refuse it.
"""

from __future__ import annotations

from moot.errors import UsageError
from moot.schemas.config import JudgeSpec

LEVELS = ("minimal", "low", "medium", "high", "xhigh")
ANTHROPIC_BUDGETS = {"low": 1024, "medium": 4096, "high": 16384, "xhigh": 32768}
GEMINI_BUDGETS = {"minimal": 128, "low": 1024, "medium": 8192, "high": 24576}
XAI_LEVELS = ("low", "high")


def gemini_uses_level(model: str) -> bool:
    """Gemini 3 models take a thinking level; older ones a token budget."""
    return model.rsplit("/", 1)[-1].startswith("gemini-3")


def accepted(wire: str, provider: str, model: str) -> tuple[str, ...]:
    """The levels a judge of this wire, provider and model takes (none: it takes no reasoning effort)."""
    if wire == "openai":
        return XAI_LEVELS if provider == "xai" else LEVELS
    if wire == "anthropic":
        return tuple(ANTHROPIC_BUDGETS)
    if wire == "gemini":
        return LEVELS if gemini_uses_level(model) else tuple(GEMINI_BUDGETS)
    if wire == "codex":
        return LEVELS
    return ()


def check_effort(spec: JudgeSpec, wire: str, provider: str, model: str) -> None:
    """Refuse, before any call, a level the judge's provider does not take, and fields it cannot be sent."""
    who = f"judge '{spec.label}'"
    if spec.extra_body is not None and wire not in ("openai", "anthropic", "gemini"):
        raise UsageError(f"{who}: extra_body is for API judges (OpenAI-compatible, Anthropic, Gemini), not {provider}")
    effort = spec.reasoning_effort
    if effort is None:
        return
    levels = accepted(wire, provider, model)
    if not levels:
        raise UsageError(f"{who}: {provider} takes no reasoning_effort")
    if effort not in levels:
        raise UsageError(f"{who}: reasoning_effort '{effort}' is not one {provider} takes ({', '.join(levels)})")
    if wire == "anthropic" and spec.temperature is not None:
        raise UsageError(f"{who}: Anthropic's thinking (reasoning_effort) takes no temperature; remove one of them")


def anthropic_thinking(effort: str | None, max_tokens: int) -> tuple[dict[str, object], int]:
    """Anthropic's `thinking` block for a level, and the output bound that leaves the reply its own room."""
    if effort is None:
        return {}, max_tokens
    budget = ANTHROPIC_BUDGETS[effort]
    return {"thinking": {"type": "enabled", "budget_tokens": budget}}, max_tokens + budget


def gemini_thinking(effort: str | None, model: str) -> dict[str, object] | None:
    """Gemini's `thinking_config` for a level (a level for Gemini 3, a token budget before it)."""
    if effort is None:
        return None
    if gemini_uses_level(model):
        return {"thinking_level": effort.upper()}
    return {"thinking_budget": GEMINI_BUDGETS[effort]}


def codex_flags(spec: JudgeSpec) -> list[str]:
    """codex's own setting for the level, as `-c` config overrides."""
    return ["-c", f"model_reasoning_effort={spec.reasoning_effort}"] if spec.reasoning_effort else []
