"""The real agent CLIs for tests: installed from npm at the versions pinned in tests/agent_clis (package.json
and package-lock.json), cached under ~/.cache/moot-agent-clis/<hash of the pins>, and pointed at a local
`AgentModelServer` the way each CLI is configured for a custom endpoint:

    claude   ANTHROPIC_BASE_URL + ANTHROPIC_API_KEY
    gemini   GOOGLE_GEMINI_BASE_URL + GEMINI_API_KEY, settings security.auth.selectedType gemini-api-key
    qwen     OPENAI_BASE_URL + OPENAI_API_KEY + OPENAI_MODEL (all three)
    codex    $CODEX_HOME/config.toml: a model provider with wire_api = "responses" and its env_key
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from moot.testing.agent_wire import AgentModelServer

PINS = Path(__file__).resolve().parent / "agent_clis"
CLIS = ("claude", "gemini", "qwen", "codex")
INSTALL_TIMEOUT_S = 1200


def cache_dir() -> Path:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PINS / name).read_bytes())
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "moot-agent-clis" / digest.hexdigest()[:16]


def install() -> Path:
    """The folder of the four executables, installed with npm when missing. Skips, saying why, only when npm
    itself is missing."""
    target = cache_dir()
    bin_dir = target / "node_modules" / ".bin"
    if all((bin_dir / c).exists() for c in CLIS):
        return bin_dir
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the real agent CLIs cannot be installed")
    work = target.with_name(target.name + f".tmp{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(PINS / name, work / name)
    # install scripts stay off (optional helpers such as keytar would try to download or compile), except
    # Claude Code's own, which copies its native binary (shipped in the npm package) over a placeholder
    steps = [
        ([npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"], work),
        (["node", "install.cjs"], work / "node_modules" / "@anthropic-ai" / "claude-code"),
    ]
    for cmd, cwd in steps:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
        if r.returncode != 0:
            raise RuntimeError(f"installing the agent CLIs: {' '.join(cmd)} failed: {(r.stderr or r.stdout)[-2000:]}")
    if all((bin_dir / c).exists() for c in CLIS):  # another run installed them meanwhile
        shutil.rmtree(work, ignore_errors=True)
        return bin_dir
    shutil.rmtree(target, ignore_errors=True)
    work.rename(target)
    return bin_dir


def point_at(server: AgentModelServer, home: Path, monkeypatch: pytest.MonkeyPatch, bin_dir: Path) -> None:
    """Configure all four CLIs, through HOME and the environment, to use `server` and nothing else."""
    clear_vendor_env(monkeypatch)
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.root_url)
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test")
    (home / ".gemini").mkdir(exist_ok=True)
    settings = {"security": {"auth": {"selectedType": "gemini-api-key"}}}
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings))
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_MODEL", "qwen-test")
    codex_home = home / ".codex"
    codex_home.mkdir(exist_ok=True)
    (codex_home / "config.toml").write_text(
        'model = "gpt-test"\nmodel_provider = "local"\n\n[model_providers.local]\nname = "local"\n'
        f'base_url = "{server.base_url}"\nenv_key = "LOCAL_MODEL_KEY"\nwire_api = "responses"\n'
    )
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    monkeypatch.setenv("LOCAL_MODEL_KEY", "local-test")


def no_credentials(home: Path, monkeypatch: pytest.MonkeyPatch, bin_dir: Path) -> None:
    """The four CLIs on PATH, an empty HOME, and none of the variables any of them reads a credential from."""
    clear_vendor_env(monkeypatch)
    home.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")


def clear_vendor_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable any of the four CLIs reads a credential, an endpoint or a model from."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "CODEX_", "ANTHROPIC_", "CLAUDE_", "GEMINI_", "GOOGLE_", "DASHSCOPE_", "QWEN_")):
            monkeypatch.delenv(name)
