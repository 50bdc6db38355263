"""Which vendor a model name belongs to, and how to reach it: one table, extendable from config.

A judge is named `provider/model` (`openai/gpt-5.2`, `ollama/llama3.3`) or by a bare known name
(`gpt-5.2`, `grok-4`, `haiku`) that the alias table resolves. Users add aliases in their judges file
(`aliases: {fast: anthropic/claude-haiku-4-5}`); `expand_aliases` applies them when the file is loaded.

A judge with `api_base` and no `provider` is an OpenAI-compatible endpoint and its model name is sent as
given; with `provider` too, that vendor's wire protocol is spoken to the given address (a proxy, a test
server).
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from typing import Any

from moot.errors import UsageError
from moot.schemas.config import JudgeSpec
from moot.schemas.safe_text import remember_secret

# The most output tokens a judge may write when its spec sets no `max_tokens`: Anthropic requires a bound,
# and under a cost cap every vendor gets it, so that a round's worst case is a real bound.
DEFAULT_MAX_OUTPUT_TOKENS = 8192
# ... except on a server that decodes under a grammar (any OpenAI-compatible server but the vendors' clouds):
# there the enforced schema is fitted under the bound, and a bound of 8192 would ask a small local model for
# pages, and a small context window for room it lacks. Enough for every protocol's schemas (evaluate's need
# about 520-620 tokens, by criteria and open findings).
LOCAL_MAX_OUTPUT_TOKENS = 768
VENDOR_CLOUDS = ("openai", "xai", "openrouter")  # OpenAI's wire, but the portable schema and no grammar


@dataclass(frozen=True)
class Provider:
    name: str
    wire: str  # "openai" (chat completions), "anthropic" (messages), "gemini" (generateContent)
    base_url: str | None
    key_envs: tuple[str, ...]
    price_provider: str | None = None  # genai-prices provider id
    local: bool = False  # runs on the user's machine: no key needed, costs nothing
    structured: str = "json_schema"  # the reply-schema form `structured: auto` tries first (judges/structured.py)
    # default limits, so that a five-judge panel or a batch stays under a vendor's entry-tier limits
    concurrency: int = 16
    rpm: float | None = None
    burst: int | None = None


PROVIDERS: dict[str, Provider] = {
    "openai": Provider("openai", "openai", None, ("OPENAI_API_KEY",), "openai", concurrency=8, rpm=500),
    "xai": Provider("xai", "openai", "https://api.x.ai/v1", ("XAI_API_KEY",), "x-ai", concurrency=8, rpm=60),
    "gemini": Provider("gemini", "gemini", None, ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "google", concurrency=8, rpm=60),
    "anthropic": Provider("anthropic", "anthropic", None, ("ANTHROPIC_API_KEY",), "anthropic", concurrency=8, rpm=50),
    "openrouter": Provider(
        "openrouter", "openai", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), "openrouter", rpm=60
    ),
    # local servers answer one or two requests at a time; more only queues them behind each other
    "ollama": Provider("ollama", "openai", "http://127.0.0.1:11434/v1", (), None, local=True, concurrency=2),
    "vllm": Provider("vllm", "openai", "http://127.0.0.1:8000/v1", (), None, local=True, concurrency=8),
    "llamacpp": Provider("llamacpp", "openai", "http://127.0.0.1:8080/v1", (), None, local=True, concurrency=2),
    # llama-cpp-python's server (`python -m llama_cpp.server`): its own reply-schema form, its own port
    "llama-cpp-python": Provider(
        "llama-cpp-python",
        "openai",
        "http://127.0.0.1:8000/v1",
        (),
        None,
        local=True,
        concurrency=1,
        structured="json_object",
    ),
    "lmstudio": Provider("lmstudio", "openai", "http://127.0.0.1:1234/v1", (), None, local=True, concurrency=2),
}

# wire -> (the module its SDK is imported as, the pip distribution, the moot extra that installs it)
SDKS: dict[str, tuple[str, str, str]] = {
    "openai": ("openai", "openai", "openai"),
    "anthropic": ("anthropic", "anthropic", "anthropic"),
    "gemini": ("google.genai", "google-genai", "gemini"),
}

ALIASES: dict[str, str] = {
    "gpt-5.2": "openai/gpt-5.2",
    "gpt-5": "openai/gpt-5",
    "gpt-5-mini": "openai/gpt-5-mini",
    "grok-4": "xai/grok-4",
    "gemini-3-pro-preview": "gemini/gemini-3-pro-preview",
    "gemini-2.5-pro": "gemini/gemini-2.5-pro",
    "gemini-2.5-flash": "gemini/gemini-2.5-flash",
    "gemini": "gemini/gemini-3-pro-preview",
    "haiku": "anthropic/claude-haiku-4-5",
    "sonnet": "anthropic/claude-sonnet-4-6",
    "opus": "anthropic/claude-opus-4-6",
    "claude": "anthropic/claude-sonnet-4-6",
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


def alias_target(name: str, aliases: dict[str, str] | None = None) -> str:
    """Follow aliases (the user's first, then the built-in table) until a name is not an alias."""
    table = {**ALIASES, **(aliases or {})}
    seen: set[str] = set()
    while name in table and name not in seen:
        seen.add(name)
        name = table[name]
    return name


def expand_aliases(spec: JudgeSpec, aliases: dict[str, str]) -> JudgeSpec:
    """The spec with the user's aliases applied to its model and fallbacks; the alias stays its display name."""
    if not aliases:
        return spec
    update: dict[str, object] = {}
    if spec.model in aliases:
        update["model"] = alias_target(spec.model, aliases)
        if spec.name is None:
            update["name"] = spec.model
    if any(f in aliases for f in spec.fallbacks):
        update["fallbacks"] = [alias_target(f, aliases) for f in spec.fallbacks]
    return spec.model_copy(update=update) if update else spec


def resolve(spec: JudgeSpec, aliases: dict[str, str] | None = None) -> Resolved:
    """Resolve a judge spec to a provider, a model name and a base URL. Raises UsageError if unknown."""
    name = alias_target(spec.model, aliases)
    prefix, sep, rest = name.partition("/")
    if spec.api_base and spec.provider is None:
        # an OpenAI-compatible endpoint of the user's: the model name is theirs, sent as given
        return Resolved(Provider("custom", "openai", spec.api_base, ()), name, spec.api_base)
    if spec.provider is not None:
        prov = PROVIDERS.get(spec.provider)
        if prov is None:
            if not spec.api_base:
                raise UsageError(
                    f"judge '{spec.label}': unknown provider '{spec.provider}' "
                    f"(known: {', '.join(PROVIDERS)}; or give api_base for an OpenAI-compatible server)"
                )
            prov = Provider(spec.provider, "openai", spec.api_base, ())
        model = rest if sep and prefix == spec.provider else name
        return Resolved(prov, model, spec.api_base or prov.base_url)
    if sep and prefix in PROVIDERS:
        prov = PROVIDERS[prefix]
        return Resolved(prov, rest, prov.base_url)
    for start, pname in _PREFIX_GUESSES:
        if name.startswith(start):
            prov = PROVIDERS[pname]
            return Resolved(prov, name, prov.base_url)
    raise UsageError(
        f"judge '{spec.label}': cannot tell which provider serves model '{spec.model}' "
        f"(write it as provider/model with provider one of {', '.join(PROVIDERS)}, or give api_base)"
    )


def is_loopback(url: str | None) -> bool:
    """Whether `url` points at this machine (127.0.0.0/8, ::1, localhost): a server there costs nothing."""
    import ipaddress
    from urllib.parse import urlsplit

    try:
        host = urlsplit(url or "").hostname or ""
    except ValueError:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def grammar_server(spec: JudgeSpec) -> bool:
    """Whether an API judge's server decodes under a grammar made from the enforced schema: an
    OpenAI-compatible server that is not a vendor's cloud (a local preset, or an `api_base` of the user's)."""
    if spec.replies is not None or spec.script or spec.cli or spec.command:
        return False
    try:
        provider = resolve(spec).provider
    except UsageError:
        return False
    return provider.wire == "openai" and provider.name not in VENDOR_CLOUDS


def with_output_bound(spec: JudgeSpec) -> JudgeSpec:
    """The spec with `LOCAL_MAX_OUTPUT_TOKENS` as its `max_tokens` when it sets none and its server is a
    grammar server; otherwise unchanged. Applied when a seat is built, so that the judge, the engine's context
    and cost checks and the stored spec all see the one bound."""
    if spec.max_tokens is not None or not grammar_server(spec):
        return spec
    return spec.model_copy(update={"max_tokens": LOCAL_MAX_OUTPUT_TOKENS})


def sdk_missing(wire: str) -> str | None:
    """Why a wire's SDK cannot be imported here, with the install command; None when it can.

    Only looked up (`find_spec`), never imported: a doctor run stays cheap and vendors' SDKs stay lazy.
    """
    if wire not in SDKS:
        return None
    module, dist, extra = SDKS[wire]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module blocked in sys.modules
        found = False
    return None if found else f"SDK '{dist}' not installed: pip install 'moot[{extra}]'"


def needs_key(spec: JudgeSpec, resolved: Resolved) -> bool:
    """Vendors' clouds need a credential; local servers and the user's own endpoints may not."""
    return not (resolved.provider.local or spec.api_base)


def adapter_args(spec: JudgeSpec, model: str) -> dict[str, Any]:
    """What every native vendor adapter is built from: the resolved model, key, endpoint and settings."""
    resolved = resolve(spec.model_copy(update={"model": model}))
    return {
        "model": resolved.model,
        "api_key": api_key_for(spec, resolved),
        "base_url": resolved.base_url,
        "provider": resolved.provider.name,
        "temperature": spec.temperature,
        "max_tokens": spec.max_tokens,
        "reasoning_effort": spec.reasoning_effort,
        "extra_body": spec.extra_body,
        "prompt_cache": spec.prompt_cache,
    }


def api_key_for(spec: JudgeSpec, resolved: Resolved) -> str | None:
    """The judge's credential: `api_key`, else `api_key_env`, else the vendor's usual variables."""
    if spec.api_key:
        remember_secret(spec.api_key)
        return spec.api_key
    if spec.api_key_env:
        remember_secret(os.environ.get(spec.api_key_env), spec.api_key_env)
        return os.environ.get(spec.api_key_env) or None
    for env in resolved.provider.key_envs:
        if os.environ.get(env):
            remember_secret(os.environ[env], env)
            return os.environ[env]
    return None


def key_hint(spec: JudgeSpec, resolved: Resolved) -> str:
    names = (spec.api_key_env,) if spec.api_key_env else resolved.provider.key_envs
    return " or ".join(n for n in names if n) or "api_key_env"


# Where each vendor's SDK sends a request when no `api_base` is given: what "the vendor's own endpoint" is.
DEFAULT_ENDPOINTS: dict[str, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
    "gemini": "https://generativelanguage.googleapis.com",
    "xai": "https://api.x.ai/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}


@dataclass(frozen=True)
class KeyRoute:
    """Which credential an API judge would send, and where: what `moot doctor` and `--dry-run` show, and
    what the trust rule reads."""

    judge: str
    variable: str  # the environment variable, or "api_key" (written in the file itself)
    url: str
    at_home: bool  # the address is the vendor's own default endpoint (no `api_base` of the file's)
    own: bool  # ... and the variable is one of that vendor's own (OPENAI_API_KEY to OpenAI)

    @property
    def host(self) -> str:
        from urllib.parse import urlsplit

        try:
            return urlsplit(self.url).hostname or self.url
        except ValueError:
            return self.url


def _same_endpoint(url: str, default: str | None) -> bool:
    return default is not None and url.rstrip("/") == default.rstrip("/")


def key_routes(spec: JudgeSpec, aliases: dict[str, str] | None = None) -> list[KeyRoute]:
    """Every credential an API judge (and each of its fallbacks) would send, with the address it goes to; a
    judge that sends no key (a local server, an `api_base` with no key to send) has none."""
    if spec.host or spec.replies is not None or spec.script or spec.cli or spec.command:
        return []
    routes: list[KeyRoute] = []
    for model in [spec.model, *spec.fallbacks]:
        try:
            resolved = resolve(spec.model_copy(update={"model": model}), aliases)
        except UsageError:
            continue
        prov = resolved.provider
        default = DEFAULT_ENDPOINTS.get(prov.name) if prov.name in PROVIDERS else None
        url = resolved.base_url or default or ""
        at_home = not spec.api_base or _same_endpoint(spec.api_base, default)
        if spec.api_key:
            routes.append(KeyRoute(spec.label, "api_key", url, at_home, at_home))
            continue
        names = (spec.api_key_env,) if spec.api_key_env else prov.key_envs
        routes += [KeyRoute(spec.label, n, url, at_home, at_home and n in prov.key_envs) for n in names if n]
    return list(dict.fromkeys(routes))


def away_route(spec: JudgeSpec, aliases: dict[str, str] | None = None) -> KeyRoute | None:
    """The first of the judge's credentials (from the environment) that would go to an address other than its
    vendor's own endpoint (an `api_base` the file names), or None: what a found project file needs trust for."""
    return next((r for r in key_routes(spec, aliases) if not r.at_home and r.variable != "api_key"), None)


def key_lines(spec: JudgeSpec) -> list[str]:
    """The judge's credentials as a user reads them: `OPENAI_API_KEY to api.openai.com` (a vendor that reads
    either of two variables names both)."""
    grouped: dict[str, list[str]] = {}
    for r in key_routes(spec):
        grouped.setdefault(r.host, []).append("the file's api_key" if r.variable == "api_key" else r.variable)
    return [f"{' or '.join(dict.fromkeys(names))} to {host}" for host, names in grouped.items()]


def stored_key_lines(spec: dict[str, Any]) -> list[str]:
    """`key_lines` of a spec as a seat keeps it (`JudgeSpec.public_dict`: the key itself left out)."""
    data = {k: v for k, v in spec.items() if k != "api_key_redacted"}
    if spec.get("api_key_redacted"):
        data["api_key"] = "redacted"
    try:
        return key_lines(JudgeSpec.model_validate(data))
    except ValueError:
        return []
