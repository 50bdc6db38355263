"""Every channel moot ships through, written from pyproject.toml: one version, one address.

pyproject.toml holds `version` and `[project.urls]`; nothing else states them. This script writes or checks
every copy a channel needs:

- `server.json` (the MCP registry's entry, schema 2025-12-11) and `release/mcpb/manifest.json` (the Claude
  Desktop bundle), written whole;
- the version in the Claude Code plugin, the marketplace, the Gemini extension and the Codex plugin;
- the repository address in every README, docs page, skill and the plugin launcher (`github.com/…/moot`),
  and the pinned `uvx` requirement the launcher falls back to.

    python release/channels.py           # rewrite every copy from pyproject.toml
    python release/channels.py --check   # exit 1, naming each copy that disagrees (CI and tests run this)

Run from anywhere; `--root DIR` checks another checkout (the tests plant mistakes in a copy).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
DESCRIPTION = "Judges with assigned stances debate an artifact, a decision or a position, and end in a verdict."
KEYS = {  # the vendor keys a user can hand the MCP server: variable -> what it is for
    "OPENAI_API_KEY": "OpenAI judges (gpt-*)",
    "ANTHROPIC_API_KEY": "Anthropic judges (claude-*)",
    "GEMINI_API_KEY": "Gemini judges (gemini-*)",
    "XAI_API_KEY": "xAI judges (grok-*)",
    "OPENROUTER_API_KEY": "judges reached through OpenRouter",
}
TEXT_FILES = (
    "README.md",
    "docs/*.md",
    "plugins/moot/README.md",
    "plugins/moot/skills/*/SKILL.md",
    ".agents/skills/*/SKILL.md",
    "plugins/moot/bin/moot",
    "commands/**/*.toml",
)
CODEX_STARTUP_S = 120  # what `moot setup codex` writes too (moot.api.clients.CODEX_TIMEOUTS)
CODEX_TOOL_S = 3600
_REPO_URL = re.compile(r"""https://github\.com/[A-Za-z0-9_.-]+/moot(?=[./@'"`\s)#,]|$)""")
_SLUG = re.compile(r"(/plugin marketplace add |uses: )[A-Za-z0-9_.-]+/moot\b")
_MCP_NAME = re.compile(r"mcp-name: [A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_VERSION_FIELD = re.compile(r'("version"\s*:\s*)"[^"]*"')
_UVX_PIN = re.compile(r"moot\[all\]==[0-9][0-9A-Za-z.+-]*")


class Project:
    """What pyproject.toml says: the version, the repository and the names derived from them."""

    def __init__(self, root: Path) -> None:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        self.version: str = data["version"]
        self.repository: str = data["urls"]["Repository"].rstrip("/")
        owner_repo = self.repository.removeprefix("https://github.com/")
        self.slug = owner_repo  # OWNER/moot
        self.registry_name = f"io.github.{owner_repo}"  # the MCP registry's name, proven by the GitHub login


def server_json(p: Project) -> dict[str, Any]:
    """The MCP registry entry: moot from PyPI, run by uvx, speaking stdio; each vendor key a secret."""
    env = [
        {"name": var, "description": f"For {what}; optional.", "isSecret": True, "isRequired": False}
        for var, what in KEYS.items()
    ]
    package = {
        "registryType": "pypi",
        "identifier": "moot",
        "version": p.version,
        "runtimeHint": "uvx",
        "transport": {"type": "stdio"},
        "packageArguments": [{"type": "positional", "value": "mcp"}],
        "environmentVariables": env,
    }
    return {
        "$schema": SCHEMA_URL,
        "name": p.registry_name,
        "title": "moot",
        "description": DESCRIPTION,
        "repository": {"url": p.repository, "source": "github"},
        "websiteUrl": p.repository,
        "version": p.version,
        "packages": [package],
    }


def mcpb_manifest(p: Project) -> dict[str, Any]:
    """The Claude Desktop bundle (MCPB 0.4, uv runtime): the wheel rides inside it and uv installs it with
    its dependencies; each vendor key is a sensitive user setting, passed as MOOT_PLUGIN_* so an empty one
    does not hide the variable from the user's environment (the same rule as the Claude Code plugin)."""
    config = {
        var.removesuffix("_KEY").lower() + "_key": {
            "type": "string",
            "title": var.replace("_", " ").title().replace("Api", "API").replace("Openai", "OpenAI"),
            "description": f"For {what}. Leave empty for none.",
            "sensitive": True,
            "required": False,
        }
        for var, what in KEYS.items()
    }
    env = {f"MOOT_PLUGIN_{var}": "${user_config." + var.removesuffix("_KEY").lower() + "_key}" for var in KEYS}
    return {
        "manifest_version": "0.4",
        "name": "moot",
        "display_name": "moot",
        "version": p.version,
        "description": DESCRIPTION,
        "author": {"name": "moot contributors", "url": p.repository},
        "repository": {"type": "git", "url": p.repository},
        "homepage": p.repository,
        "documentation": f"{p.repository}/tree/main/docs",
        "support": f"{p.repository}/issues",
        "license": "MIT",
        "keywords": ["debate", "llm-as-judge", "code-review", "evaluation", "mcp"],
        "server": {
            "type": "uv",
            "entry_point": "src/server.py",
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", "src/server.py"],
                "env": env,
            },
        },
        "user_config": config,
        "compatibility": {"platforms": ["darwin", "linux", "win32"], "runtimes": {"python": ">=3.11"}},
    }


def codex_plugin(p: Project) -> dict[str, Any]:
    """The Codex plugin: its root is `.agents/`, beside the skills Codex already reads in a repository, and
    its server is moot from PyPI through uvx with start-up and call limits generous enough for a debate
    (Codex's own default start-up limit is 10 s, less than a cold uvx install takes)."""
    return {
        "name": "moot",
        "version": p.version,
        "description": DESCRIPTION,
        "author": {"name": "moot contributors", "url": p.repository},
        "homepage": p.repository,
        "repository": p.repository,
        "license": "MIT",
        "keywords": ["debate", "llm-as-judge", "code-review", "evaluation", "mcp"],
        "skills": "./skills/",
        "mcpServers": {
            "moot": {
                "command": "uvx",
                "args": ["--from", f"moot[all]=={p.version}", "moot", "mcp"],
                "env_vars": list(KEYS),
                "startup_timeout_sec": CODEX_STARTUP_S,
                "tool_timeout_sec": CODEX_TOOL_S,
            }
        },
        "interface": {
            "displayName": "moot",
            "shortDescription": "Judges debate, then a verdict",
            "category": "Productivity",
        },
    }


def _json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _set_version(text: str, p: Project) -> str:
    """A hand-written JSON file with its one `"version"` field set, every other byte as it is."""
    if len(_VERSION_FIELD.findall(text)) != 1:
        raise SystemExit('expected exactly one "version" field')
    return _VERSION_FIELD.sub(lambda m: f'{m.group(1)}"{p.version}"', text)


def _addresses(text: str, p: Project) -> str:
    text = _REPO_URL.sub(p.repository, text)
    text = _SLUG.sub(lambda m: m.group(1) + p.slug, text)
    text = _MCP_NAME.sub(f"mcp-name: {p.registry_name}", text)
    return _UVX_PIN.sub(f"moot[all]=={p.version}", text)


WHOLE: dict[str, Callable[[Project], dict[str, Any]]] = {
    "server.json": server_json,
    "release/mcpb/manifest.json": mcpb_manifest,
    ".agents/.codex-plugin/plugin.json": codex_plugin,
}
VERSIONED = ("plugins/moot/.claude-plugin/plugin.json", ".claude-plugin/marketplace.json", "gemini-extension.json")


def expected(root: Path) -> dict[Path, str]:
    """Each channel file as pyproject.toml says it should read."""
    p = Project(root)
    out = {root / name: _json(build(p)) for name, build in WHOLE.items()}
    for name in VERSIONED:
        out[root / name] = _addresses(_set_version((root / name).read_text(encoding="utf-8"), p), p)
    for pattern in TEXT_FILES:
        for path in sorted(root.glob(pattern)):
            out[path] = _addresses(path.read_text(encoding="utf-8"), p)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if any copy disagrees")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout (default: this one)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    stale = [
        path for path, text in expected(root).items() if not path.exists() or path.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for path in stale:
            print(f"{path.relative_to(root)}: disagrees with pyproject.toml (run python release/channels.py)")
        return 1 if stale else 0
    for path, text in expected(root).items():
        if path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
