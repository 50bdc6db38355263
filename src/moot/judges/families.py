"""Which family a model belongs to, from the provider table: `gpt-5.2` and `gpt-5-mini` are both OpenAI's.

A family is the vendor whose models share training data and habits (`openai`, `anthropic`, `gemini`,
`xai`). A model reached through OpenRouter (`openrouter/anthropic/claude-...`) keeps its maker's family. A
model the table does not know (a local model, `llama3.3` on Ollama, `smollm2` behind llama.cpp) is its own
family, named by the model without its tag (`llama3.3:70b` -> `llama3.3`). Agent CLIs belong to the vendor
whose models they run.
"""

from __future__ import annotations

from moot.judges.providers import _PREFIX_GUESSES, PROVIDERS, alias_target

# the agent CLIs' own names -> the family of the models they run by default
CLI_FAMILIES = {"codex": "openai", "claude": "anthropic", "gemini": "gemini", "qwen": "qwen"}


def model_name(name: str) -> str:
    """A model name without the provider prefix the table knows (`openai/gpt-5.2` -> `gpt-5.2`), aliases
    followed: how the panel names a seat's model."""
    name = alias_target(name.strip())
    prefix, sep, rest = name.partition("/")
    while sep and prefix in PROVIDERS:
        name = rest
        prefix, sep, rest = name.partition("/")
    return name


def bare_model(name: str) -> str:
    """The model name in lower case, without a known provider prefix: what two seats must share to be the
    same model."""
    return model_name(name).lower()


# judges that stand in for a model (tests, the demo, code, a host seat whose replies the caller gives): they
# have a family only when they play a model the table knows (the demo's scripted `gpt-5.2`); a scripted judge
# named `scripted` or `alpha` has none, and nor has a host seat: moot cannot know which model answers for it
STAND_INS = frozenset({"scripted", "function", "host"})


def family_of(model: str, provider: str = "") -> str:
    """The family of `model` as `provider` serves it (`provider` may be empty, `custom` or a local server);
    "" for a stand-in judge that plays no model the table knows."""
    if provider == "cli" and model.lower() in CLI_FAMILIES:
        return CLI_FAMILIES[model.lower()]
    if provider in STAND_INS:
        known = family_of(model)
        return known if known in PROVIDERS else ""
    name = alias_target(model.strip())
    prefix, sep, rest = name.partition("/")
    if sep and prefix == "openrouter":
        return family_of(rest)
    if sep and prefix in PROVIDERS and not PROVIDERS[prefix].local:
        return prefix
    bare = bare_model(name)
    if "/" in bare:  # an OpenRouter-style maker prefix (`anthropic/claude-...`), or a path
        maker, _, tail = bare.partition("/")
        if maker in PROVIDERS and not PROVIDERS[maker].local:
            return maker
        bare = bare.rsplit("/", 1)[-1] or tail
    for start, family in _PREFIX_GUESSES:
        if bare.startswith(start):
            return family
    if provider in PROVIDERS and not PROVIDERS[provider].local and provider != "openrouter":
        return provider
    return bare.split(":", 1)[0] or model
