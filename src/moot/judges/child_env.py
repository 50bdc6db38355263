"""The environment an agent CLI or a `command:` judge runs with: what it needs, never the rest of moot's.

moot's own environment holds every vendor's key, and in CI the workflow's GitHub token. A judge that runs a
program gets only: what any program needs to run (`PATH`, `HOME`, the user and shell, temporary folders,
locale, terminal, XDG folders, proxies and CA bundles, Node's and Python's own settings), plus its own
credentials: a built-in CLI its vendor's variables (claude `ANTHROPIC_*`/`CLAUDE_*`, codex `OPENAI_*`/
`CODEX_*` and the variable its config.toml's provider names, gemini `GEMINI_*`/`GOOGLE_*`, qwen `OPENAI_*`/
`QWEN_*`/`DASHSCOPE_*`), a `command:` judge the variable its `api_key_env` names, if any. Nothing else:
no other vendor's key, no `GITHUB_TOKEN`, no CI token.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from moot.schemas.config import JudgeSpec

RUN_VARIABLES = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TEMP", "TMP", "LANG", "LANGUAGE", "TZ",
        "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "SYSTEMROOT", "COMSPEC", "PATHEXT", "USERPROFILE",
        "APPDATA", "LOCALAPPDATA", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
        "XDG_RUNTIME_DIR", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
        "no_proxy", "all_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
        "NODE_OPTIONS", "NODE_PATH", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONIOENCODING", "PYTHONUTF8",
    }
)  # fmt: skip
RUN_PREFIXES = ("LC_",)
CLI_PREFIXES: dict[str, tuple[str, ...]] = {
    "claude": ("ANTHROPIC_", "CLAUDE_"),
    "codex": ("OPENAI_", "CODEX_"),
    "gemini": ("GEMINI_", "GOOGLE_"),
    "qwen": ("OPENAI_", "QWEN_", "DASHSCOPE_"),
}


def _codex_provider_key() -> str | None:
    """The variable a custom provider in codex's config.toml reads its key from (`env_key`), if any."""
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex")
    try:
        config = tomllib.loads((home / "config.toml").read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None
    provider = (config.get("model_providers") or {}).get(str(config.get("model_provider") or ""))
    key = provider.get("env_key") if isinstance(provider, dict) else None
    return str(key) if key else None


def own_variables(spec: JudgeSpec) -> tuple[set[str], tuple[str, ...]]:
    """The judge's own credential variables: exact names, and name prefixes."""
    names = {spec.api_key_env} if spec.api_key_env else set()
    if spec.command or not spec.cli:
        return names, ()
    if spec.cli == "codex" and (key := _codex_provider_key()):
        names.add(key)
    return names, CLI_PREFIXES.get(spec.cli, ())


def child_env(spec: JudgeSpec, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment the judge's program is started with (from `environ`, default moot's own)."""
    source = dict(os.environ if environ is None else environ)
    names, prefixes = own_variables(spec)
    starts = (*RUN_PREFIXES, *prefixes)
    return {k: v for k, v in source.items() if k in RUN_VARIABLES or k in names or k.startswith(starts)}
