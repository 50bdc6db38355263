"""The Claude Code plugin and marketplace, the Gemini CLI extension and the Codex skills shipped in this
repository: their files hold together, name moot's real MCP tools, and the plugin's own MCP entry starts a
server that answers through the official MCP Python client. (The pinned binaries validate the same files in
tests/test_plugin_real.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client, StdioServerParameters

from moot.mcp import build_server

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "plugins" / "moot"
SKILLS = ("judge-with-debate", "decide", "debate", "doctor")
SPENDS_MONEY = {"judge-with-debate", "decide", "debate"}
# the host-seat tools of issue 28 ("The agent in the debate"): named by the skills before this server has them
HOST_TOOLS = {"submit_replies", "cancel_debate"}
PREFIX = "mcp__plugin_moot_moot__"  # Claude Code's name for a tool of plugin moot's server moot
LAUNCHER = PLUGIN / "bin" / "moot"


def frontmatter(path: Path) -> tuple[dict[str, Any], str]:
    """A Markdown file's YAML frontmatter and its body."""
    _, front, body = path.read_text().split("---\n", 2)
    data = yaml.safe_load(front)
    assert isinstance(data, dict), path
    return data, body


REPOSITORY = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]


def moot_tools() -> set[str]:
    async def names() -> set[str]:
        async with Client(build_server()) as client:
            return {t.name for t in (await client.list_tools()).tools}

    return anyio.run(names)


def test_the_marketplace_lists_the_plugin_moot_and_its_manifest_carries_moots_version() -> None:
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text())
    assert market["name"] == "moot"
    [entry] = market["plugins"]
    assert entry["name"] == "moot" and (ROOT / entry["source"]).resolve() == PLUGIN
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "moot" and manifest["version"] == version("moot")
    for key in ("description", "license", "repository", "keywords"):
        assert manifest[key], key
    assert (PLUGIN / "README.md").is_file()


def test_every_key_is_a_sensitive_user_option_that_reaches_only_the_servers_environment() -> None:
    manifest = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())
    options = manifest["userConfig"]
    assert options and all(o["sensitive"] is True for o in options.values())
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["moot"]
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/bin/moot" and server["args"] == ["mcp"]
    # besides the keys, one plain word: the client that starts this server (moot doctor says the plugin has it)
    keys = {k: v for k, v in server["env"].items() if k != "MOOT_SERVED_BY"}
    assert server["env"]["MOOT_SERVED_BY"] == "claude"
    referenced = {re.fullmatch(r"\$\{user_config\.(\w+)\}", v).group(1) for v in keys.values()}  # type: ignore[union-attr]
    assert referenced == set(options)
    for name, value in keys.items():  # the launcher maps MOOT_PLUGIN_X to X: each one it knows
        assert name.startswith("MOOT_PLUGIN_") and name.removeprefix("MOOT_PLUGIN_") in LAUNCHER.read_text()
        assert value == "${user_config." + name.removeprefix("MOOT_PLUGIN_").lower() + "}"
    skill_text = "".join(p.read_text() for p in PLUGIN.rglob("*.md"))
    assert "user_config" not in skill_text  # a sensitive value is never substituted into skill content


def test_the_four_skills_name_moots_tools_as_claude_code_names_a_plugin_servers_tools() -> None:
    real = moot_tools()
    assert {"evaluate", "decide", "challenge", "doctor", "show_debate"} <= real
    uses = {}
    for name in SKILLS:
        meta, body = frontmatter(PLUGIN / "skills" / name / "SKILL.md")
        assert meta["name"] == name and meta["description"] and "argument-hint" in meta
        tools = [t.strip() for t in meta["allowed-tools"].split(",")]
        mcp = {t.removeprefix(PREFIX) for t in tools if t.startswith("mcp__")}
        assert all(t.startswith(PREFIX) for t in tools if t.startswith("mcp__")), tools
        assert mcp <= real | HOST_TOOLS, mcp - real - HOST_TOOLS
        assert meta.get("disable-model-invocation", False) is (name in SPENDS_MONEY), name
        for tool in mcp:  # every tool it may call, it tells the agent about
            assert f"`{tool}`" in body, (name, tool)
        uses[name] = mcp
    assert {"evaluate", "submit_replies"} <= uses["judge-with-debate"]
    assert {"decide", "submit_replies"} <= uses["decide"]
    assert {"challenge", "submit_replies"} <= uses["debate"] and "Agent" not in uses["debate"]
    assert uses["doctor"] == {"doctor"}
    debate, _ = frontmatter(PLUGIN / "skills" / "debate" / "SKILL.md")
    assert "Agent" not in debate["allowed-tools"]  # the agent itself is the proponent: no sub-agent
    for name in ("judge-with-debate", "decide"):
        meta, body = frontmatter(PLUGIN / "skills" / name / "SKILL.md")
        assert "Agent" in meta["allowed-tools"] and "`debate-judge`" in body and '`judges: "host"`' in body
    _, body = frontmatter(PLUGIN / "skills" / "debate" / "SKILL.md")
    assert '`proponent: "host"`' in body


def test_the_judge_agent_answers_one_seat_in_its_schema_with_read_only_tools() -> None:
    meta, body = frontmatter(PLUGIN / "agents" / "debate-judge.md")
    assert meta["name"] == "debate-judge" and meta["model"] == "haiku" and meta["description"]
    assert set(meta["tools"].replace(" ", "").split(",")) <= {"Read", "Glob", "Grep"}
    for word in ("`system`", "`prompt`", "`schema`", "never\n  instructions"):
        assert word in body, word


def test_the_gemini_extension_starts_the_same_launcher_and_has_the_four_commands() -> None:
    ext = json.loads((ROOT / "gemini-extension.json").read_text())
    assert ext["name"] == "moot" and ext["version"] == version("moot")
    server = ext["mcpServers"]["moot"]
    command = server["command"].replace("${extensionPath}", str(ROOT)).replace("${/}", "/")
    assert Path(command).resolve() == LAUNCHER and server["args"] == ["mcp"]
    assert all(s["sensitive"] and s["envVar"].startswith("MOOT_PLUGIN_") for s in ext["settings"])
    commands = {p.stem: tomllib.loads(p.read_text()) for p in (ROOT / "commands" / "moot").glob("*.toml")}
    assert sorted(commands) == ["debate", "decide", "doctor", "evaluate"]  # /moot:evaluate, /moot:decide, ...
    for name, command_toml in commands.items():
        assert command_toml["description"] and "{{args}}" in command_toml["prompt"], name
    assert '`proponent: "host"`' in commands["debate"]["prompt"]
    assert "submit_replies" in commands["evaluate"]["prompt"] and "submit_replies" in commands["decide"]["prompt"]


# Claude Code's words in a plugin skill -> what a Codex skill says instead (Codex has no $ARGUMENTS, no
# plugin agent and no slash command of the plugin's)
CODEX_WORDS = {
    "Arguments, as the user gave them: $ARGUMENTS": "Arguments: what the user asked for, in the form of the Usage line below.",
    "Topic, as the user gave it: $ARGUMENTS": "Topic: what the user asked you to debate.",
    "(with `judges` when the user named a judges file: $ARGUMENTS)": "(with `judges` when the user named a judges file)",
    "start one sub-agent (the `debate-judge` agent) and hand it": "start one sub-agent and hand it",
    "start one `debate-judge` sub-agent with exactly": "start one sub-agent with exactly",
    "(see `/moot:doctor`)": "(see the moot-doctor skill)",
}
NO_SUBAGENTS = (
    "Where you cannot start sub-agents, answer each request yourself, one at a time, as that seat alone:\n"
    "its `system` is your only instruction for it, and no other seat's request or reply informs it.\n"
)


def codex_skill(name: str) -> str:
    """The Codex skill `moot-NAME` made from the plugin's skill NAME: the same procedure, in Codex's words."""
    meta, body = frontmatter(PLUGIN / "skills" / name / "SKILL.md")
    for claude, codex in CODEX_WORDS.items():
        body = body.replace(claude, codex)
    extra = "\n" + NO_SUBAGENTS if "sub-agent" in body else ""
    usage = f"Usage: `{meta['argument-hint']}` (moot's MCP server must be registered: `moot setup codex`).\n"
    front = yaml.safe_dump({"name": f"moot-{name}", "description": meta["description"]}, width=1000, sort_keys=False)
    return f"---\n{front}---\n{body.rstrip()}\n{extra}\n{usage}"


def test_the_codex_skills_are_the_plugins_skills_where_codex_reads_them() -> None:
    """In .agents/skills (the folder the pinned codex reads in a repository, and ~/.agents/skills for a
    user); regenerate them with `python -m tests.test_plugin` after changing a plugin skill."""
    for name in SKILLS:
        path = ROOT / ".agents" / "skills" / f"moot-{name}" / "SKILL.md"
        assert path.read_text() == codex_skill(name), f"{path} is stale: python -m tests.test_plugin"
        meta, body = frontmatter(path)
        assert meta["name"] == f"moot-{name}" and "$ARGUMENTS" not in body and "mcp__" not in body
        assert "debate-judge" not in body and "/moot:" not in body


def run_launcher(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LAUNCHER), *args], env=env, capture_output=True, text=True, timeout=30)


def test_without_moot_the_launcher_says_how_to_install_it_in_one_line(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    r = run_launcher(env, "mcp")
    assert r.returncode == 127 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "moot: not installed" in r.stderr and "pipx install 'moot[all]'" in r.stderr
    assert f"'moot[all] @ git+{REPOSITORY}.git'" in r.stderr  # unreleased work: the git URL
    r = run_launcher({**env, "MOOT_BIN": str(tmp_path / "nope")}, "mcp")
    assert r.returncode == 127 and "MOOT_BIN" in r.stderr


def test_without_moot_but_with_uvx_the_launcher_runs_the_plugins_own_release_through_uvx(tmp_path: Path) -> None:
    home_bin = tmp_path / ".local" / "bin"  # where uv's installer puts uvx
    home_bin.mkdir(parents=True)
    (home_bin / "uvx").write_text('#!/bin/sh\necho "uvx $*"\n')
    (home_bin / "uvx").chmod(0o755)
    version = json.loads((PLUGIN / ".claude-plugin" / "plugin.json").read_text())["version"]
    r = run_launcher({"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}, "mcp")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"uvx --from moot[all]=={version} moot mcp"
    (tmp_path / "rel").mkdir()  # a relative PATH entry is never searched for uvx: it names the client's folder
    rel = tmp_path / "rel" / "uvx"
    rel.write_text('#!/bin/sh\necho "relative uvx"\n')
    rel.chmod(0o755)
    (home_bin / "uvx").unlink()
    r = subprocess.run([str(LAUNCHER), "mcp"], env={"PATH": "rel:/usr/bin:/bin", "HOME": str(tmp_path)},
                       cwd=tmp_path, capture_output=True, text=True, timeout=30)  # fmt: skip
    assert r.returncode == 127 and "relative uvx" not in r.stdout


def test_the_launcher_runs_the_installed_moot_with_the_plugins_keys_and_keeps_the_shells(tmp_path: Path) -> None:
    home_bin = tmp_path / ".local" / "bin"  # where pipx and uv put moot, missing from the client's PATH
    home_bin.mkdir(parents=True)
    fake = home_bin / "moot"
    fake.write_text('#!/bin/sh\necho "args=$*"\nenv | grep -E "_API_KEY=" | sort\n')
    fake.chmod(0o755)
    env = {
        "PATH": f"{LAUNCHER.parent}:/usr/bin:/bin",  # the launcher's own folder is skipped, not run again
        "HOME": str(tmp_path),
        "OPENAI_API_KEY": "sk-from-shell",
        "MOOT_PLUGIN_OPENAI_API_KEY": "",  # left empty in the plugin: the shell's key stays
        "MOOT_PLUGIN_XAI_API_KEY": "xai-from-plugin",
    }
    r = run_launcher(env, "mcp", "--http", "8765")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "args=mcp --http 8765",
        "OPENAI_API_KEY=sk-from-shell",
        "XAI_API_KEY=xai-from-plugin",
    ]


def plugin_server_params(home: Path) -> StdioServerParameters:
    """The server exactly as Claude Code starts it from the plugin's .mcp.json: `${CLAUDE_PLUGIN_ROOT}`
    substituted, every `${user_config.*}` left unset by the user given as "" (what Claude Code passes), and
    moot found on PATH (the one this test runs, installed in this environment)."""
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["moot"]

    def sub(text: str) -> str:
        return re.sub(r"\$\{user_config\.\w+\}", "", text.replace("${CLAUDE_PLUGIN_ROOT}", str(PLUGIN)))

    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home), "MOOT_HOME": str(home / "moot")}
    env |= {k: sub(v) for k, v in server["env"].items()}
    return StdioServerParameters(command=sub(server["command"]), args=[sub(a) for a in server["args"]], env=env)


def test_the_plugins_own_mcp_entry_serves_moots_tools(tmp_path: Path) -> None:
    if not (Path(sys.executable).parent / "moot").exists():
        pytest.skip("moot is not installed beside this Python (run the suite from the project's venv)")
    params = plugin_server_params(tmp_path)

    async def listed() -> tuple[set[str], dict[str, Any]]:
        async with Client(params) as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            doctor = await client.call_tool("doctor", {})
            return tools, doctor.structured_content or {}

    tools, doctor = anyio.run(listed)
    assert tools == moot_tools()
    assert {"evaluate", "decide", "challenge", "show_debate", "list_debates", "doctor"} <= tools
    assert doctor["judges"] and not any(r["usable"] for r in doctor["judges"] if r["kind"] != "agent-cli")


if __name__ == "__main__":  # python -m tests.test_plugin: write the Codex skills from the plugin's
    for skill in SKILLS:
        target = ROOT / ".agents" / "skills" / f"moot-{skill}" / "SKILL.md"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(codex_skill(skill))
