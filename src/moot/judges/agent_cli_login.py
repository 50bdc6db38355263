"""Whether an agent CLI has a credential it will really use, by the rules each CLI follows.

    claude   `claude auth status` (exit 0: logged in, by OAuth or an API key variable)
    codex    a custom model_provider in $CODEX_HOME/config.toml (its env_key set), CODEX_API_KEY, or
             `codex login status` (exit 0). OPENAI_API_KEY alone is not read by `codex exec`.
    gemini   GEMINI_API_KEY; Vertex AI (GOOGLE_GENAI_USE_VERTEXAI with GOOGLE_API_KEY or a project and
             location); or ~/.gemini/oauth_creds.json. GOOGLE_API_KEY alone does not log it in.
    qwen     OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL, all three (it reads none of them otherwise);
             or an auth type chosen in ~/.qwen/settings.json.

Files are evidence only where the CLI reads them for a credential (~/.claude.json is written by any run,
logged in or not, and proves nothing). Only presence is reported, never a value. A check that cannot
decide says so (`ok=None`); moot then lets the CLI try.
"""

from __future__ import annotations

import json
import os
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.judges.agent_cli_proc import run_process
from moot.judges.agent_cli_profiles import PROFILES

LOGIN_TIMEOUT_S = 10.0
_CACHE_TTL_S = 60.0
_cache: dict[tuple[str, ...], tuple[float, Login]] = {}


@dataclass(frozen=True)
class Login:
    ok: bool | None  # True: a credential the CLI uses; False: none; None: cannot tell
    evidence: str  # what was found (never a value), or what to run


def _env(name: str) -> bool:
    return bool(os.environ.get(name, "").strip())


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _selected_auth(settings: Path) -> str:
    auth = ((_read_json(settings).get("security") or {}).get("auth") or {}) if settings.exists() else {}
    return str(auth.get("selectedType") or "") if isinstance(auth, dict) else ""


def gemini_login() -> Login:
    if _env("GEMINI_API_KEY"):
        return Login(True, "GEMINI_API_KEY is set")
    vertex = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in ("1", "true")
    if vertex and (_env("GOOGLE_API_KEY") or (_env("GOOGLE_CLOUD_PROJECT") and _env("GOOGLE_CLOUD_LOCATION"))):
        return Login(True, "Vertex AI (GOOGLE_GENAI_USE_VERTEXAI) is set up")
    if (Path.home() / ".gemini" / "oauth_creds.json").exists():
        return Login(True, "~/.gemini/oauth_creds.json found (Google sign-in)")
    return Login(False, "no credential")


def qwen_login() -> Login:
    names = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL")
    present = [n for n in names if _env(n)]
    if len(present) == len(names):
        return Login(True, "OPENAI_API_KEY, OPENAI_BASE_URL and OPENAI_MODEL are set")
    selected = _selected_auth(Path.home() / ".qwen" / "settings.json")
    if selected:
        return Login(None, f"~/.qwen/settings.json selects '{selected}' (not verified)")
    if present:
        missing = ", ".join(n for n in names if n not in present)
        return Login(False, f"{', '.join(present)} set but {missing} not (qwen needs all three)")
    return Login(False, "no credential")


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")


def codex_provider() -> Login | None:
    """A custom provider chosen in config.toml decides the credential itself (Ollama's needs none)."""
    try:
        config = tomllib.loads((codex_home() / "config.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    name = str(config.get("model_provider") or "openai")
    if name == "openai":
        return None
    provider = (config.get("model_providers") or {}).get(name) or {}
    env_key = provider.get("env_key") if isinstance(provider, dict) else None
    if env_key and not _env(str(env_key)):
        return Login(False, f"config.toml's provider '{name}' needs {env_key}, which is not set")
    return Login(True, f"config.toml's provider '{name}'" + (f" ({env_key} is set)" if env_key else ""))


async def _status(argv: list[str]) -> int | None:
    try:
        code, _, _ = await run_process(argv, None, timeout=LOGIN_TIMEOUT_S)
    except (TimeoutError, OSError):
        return None
    return code


async def codex_login(exe: str) -> Login:
    custom = codex_provider()
    if custom is not None:
        return custom
    if _env("CODEX_API_KEY"):
        return Login(True, "CODEX_API_KEY is set")
    code = await _status([exe, "login", "status"])
    if code is None:
        return Login(None, "'codex login status' did not answer")
    return Login(code == 0, "codex login status: " + ("logged in" if code == 0 else "not logged in"))


async def claude_login(exe: str) -> Login:
    code = await _status([exe, "auth", "status"])
    if code is None:
        return Login(None, "'claude auth status' did not answer")
    return Login(code == 0, "claude auth status: " + ("logged in" if code == 0 else "not logged in"))


async def check_login(cli: str, exe: str) -> Login:
    """The credential rule of one built-in CLI (cached a minute per executable and environment)."""
    key = (cli, exe, *(f"{k}={bool(v)}" for k, v in sorted(os.environ.items()) if _relevant(k)), str(Path.home()))
    hit = _cache.get(key)
    if hit and time.monotonic() - hit[0] < _CACHE_TTL_S:
        return hit[1]
    if cli == "codex":
        found = await codex_login(exe)
    elif cli == "claude":
        found = await claude_login(exe)
    else:
        found = gemini_login() if cli == "gemini" else qwen_login()
    if found.ok is False:
        found = Login(False, f"{found.evidence}; log in with: {PROFILES[cli].login_hint}")
    _cache[key] = (time.monotonic(), found)
    return found


def _relevant(name: str) -> bool:
    return name.startswith(("OPENAI_", "CODEX_", "ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_"))
