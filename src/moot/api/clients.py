"""moot's MCP server registered with the coding agents a user has (Claude Code, Codex, Gemini CLI): the checks
behind `moot setup --list` and `moot doctor`, and the commands `moot setup CLIENT` runs.

Registering goes through each client's own command (`claude mcp add --scope user`, `codex mcp add`,
`gemini mcp add --scope user`), so the client writes its own configuration in its own format. Whether moot is
registered is read from that configuration (a file read, not a client run: node-based clients take seconds to
start, and doctor stays quick). The command registered is the absolute path of the moot that is running, so the
client finds it whatever its PATH. No key is ever passed: the server reads the vendors' variables from its own
environment, as the CLI does.

Claude Code's plugin and Gemini CLI's extension bring their own `moot` server. One installed counts as moot
registered with that client (read from the client's own record of what it installed), and `moot setup` does
not add a second server beside it unless told to (`--force`): the same tools would show twice, and in Gemini
CLI a user-scope server of the same name hides the extension's, the one that gets the extension's key settings.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.errors import MootError, UsageError

SERVER = "moot"
RUN_TIMEOUT_S = 60.0
# set by the plugin's .mcp.json and the extension's manifest in the server they start: the client that runs
# this moot has moot through its plugin or extension, whatever its files say (`--plugin-dir`, a linked folder)
SERVED_BY = "MOOT_SERVED_BY"
PROVIDERS = {"claude": "the moot plugin", "gemini": "the moot extension"}


@dataclass(frozen=True)
class AgentClient:
    """One coding agent moot can register with: its executable, how it adds a stdio server for the user (every
    project), and where it keeps what it registered."""

    name: str
    label: str
    add: tuple[str, ...]  # the client's command up to the server's name and command line
    remove: tuple[str, ...]

    def config(self) -> Path:
        """The file the client keeps its user-scope MCP servers in."""
        home = Path.home()
        if self.name == "claude":
            return Path(os.environ.get("CLAUDE_CONFIG_DIR") or home) / ".claude.json"
        if self.name == "codex":
            return Path(os.environ.get("CODEX_HOME") or home / ".codex") / "config.toml"
        return home / ".gemini" / "settings.json"

    def registered(self) -> list[str] | None:
        """The command line moot's server is registered with, or None (also when the file cannot be read)."""
        path = self.config()
        try:
            text = path.read_text()
            data: Any = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
        except (OSError, ValueError):
            return None
        servers = (
            data.get("mcp_servers" if path.suffix == ".toml" else "mcpServers") if isinstance(data, dict) else None
        )
        entry = servers.get(SERVER) if isinstance(servers, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
            return None
        args = entry.get("args") or []
        return [entry["command"], *[str(a) for a in args]] if isinstance(args, list) else None

    def provided_by(self) -> str | None:
        """What gives this client moot's server besides `moot setup` (the plugin, the extension), or None."""
        label = PROVIDERS.get(self.name)
        if label is None:
            return None
        if os.environ.get(SERVED_BY) == self.name:
            return f"{label} (this server)"
        found = _claude_plugin() if self.name == "claude" else _gemini_extension()
        return f"{label} ({found})" if found else None


def _json_file(path: Path) -> dict[str, Any]:
    """A client's JSON file, or {} when it is missing or unreadable (the client owns it, not moot)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _claude_plugin() -> str | None:
    """The moot plugin as Claude Code records it: a user-scope entry `moot@MARKETPLACE` in
    plugins/installed_plugins.json under its config folder, not turned off in its settings' enabledPlugins."""
    folder = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    installed = _json_file(folder / "plugins" / "installed_plugins.json").get("plugins")
    enabled = _json_file(folder / "settings.json").get("enabledPlugins")
    enabled = enabled if isinstance(enabled, dict) else {}
    for key, entries in (installed if isinstance(installed, dict) else {}).items():
        scopes = [e.get("scope", "user") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
        if str(key).split("@", 1)[0] == SERVER and "user" in scopes and enabled.get(key) is not False:
            return str(key)
    return None


def _gemini_extension() -> str | None:
    """An extension in ~/.gemini/extensions whose manifest declares a `moot` server, not disabled for the user
    (Gemini CLI writes `!HOME/*` among the extension's overrides in extension-enablement.json)."""
    folder = Path.home() / ".gemini" / "extensions"
    enablement = _json_file(folder / "extension-enablement.json")
    for manifest in sorted(folder.glob("*/gemini-extension.json")):
        servers = _json_file(manifest).get("mcpServers")
        state = enablement.get(manifest.parent.name)
        overrides = state.get("overrides") if isinstance(state, dict) else None
        disabled = isinstance(overrides, list) and f"!{Path.home()}/*" in overrides
        if isinstance(servers, dict) and SERVER in servers and not disabled:
            return str(manifest.parent)
    return None


CLIENTS: dict[str, AgentClient] = {
    "claude": AgentClient(
        "claude", "Claude Code", ("mcp", "add", "--scope", "user"), ("mcp", "remove", "--scope", "user", SERVER)
    ),
    "codex": AgentClient("codex", "Codex", ("mcp", "add"), ("mcp", "remove", SERVER)),
    "gemini": AgentClient(
        "gemini", "Gemini CLI", ("mcp", "add", "--scope", "user"), ("mcp", "remove", "--scope", "user", SERVER)
    ),
}


def moot_command() -> list[str]:
    """The running moot as an absolute command line: its console script beside this Python (a venv, pipx or
    `uv tool`), else this Python running the package."""
    script = Path(sys.executable).parent / "moot"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script.absolute()), "mcp"]
    return [str(Path(sys.executable).absolute()), "-m", "moot", "mcp"]


def client_rows() -> list[dict[str, Any]]:
    """Each client: found on PATH or not, and whether moot is registered with it (and with which moot)."""
    mine = moot_command()
    rows = []
    for client in CLIENTS.values():
        registered = client.registered()
        provided = client.provided_by()
        rows.append(
            {
                "client": client.name,
                "label": client.label,
                "executable": shutil.which(client.name),
                "registered": registered is not None or provided is not None,
                "command": registered,
                "this_moot": registered == mine,
                "config": str(client.config()),
                "provided_by": provided,
            }
        )
    return rows


def describe(row: dict[str, Any]) -> str:
    """One client's state in words, as `moot setup --list` and `moot doctor` print it."""
    found = f"found ({row['executable']})" if row["executable"] else "not found on PATH"
    provided = row.get("provided_by")
    if provided and row["command"]:
        remove = shlex.join([row["client"], *CLIENTS[row["client"]].remove])
        state = f"moot registered twice: by {provided} and as {' '.join(row['command'])} ({remove} drops the second)"
    elif provided:
        state = f"moot registered by {provided}"
    elif not row["registered"]:
        # a client that is not here cannot be set up yet: say so, and name no command for it
        state = f"moot not registered (moot setup {row['client']})" if row["executable"] else "moot not registered"
    elif row["this_moot"]:
        state = "moot registered"
    else:
        state = f"moot registered as {' '.join(row['command'])} (moot setup {row['client']} points it at this moot)"
    return f"{row['client']:7} {row['label']:12} {found}; {state}"


def commands_for(name: str, force: bool = False) -> list[list[str]]:
    """What `moot setup NAME` runs, in order: the client's add (after its remove when moot is registered with
    another command line). Empty when this moot is already registered, or (unless `force`) when the plugin or
    extension already gives the client moot's server."""
    client = client_or_fail(name)
    current = client.registered()
    mine = moot_command()
    if current == mine or (client.provided_by() and not force):
        return []
    add = [name, *client.add, SERVER, "--", *mine]
    if name == "gemini":  # gemini's add takes the command as a positional, with no `--` before it
        add = [name, *client.add, SERVER, *mine]
    return [[name, *client.remove], add] if current is not None else [add]


def client_or_fail(name: str) -> AgentClient:
    if name not in CLIENTS:
        raise UsageError(f"unknown client {name!r}: choose claude, codex or gemini")
    return CLIENTS[name]


# Codex gives a server 10 s to start and a tool call 60 s by default: a cold start (or one through uvx) can
# take longer, and a debate takes minutes. `moot setup codex` writes these beside the server's command.
CODEX_LIMITS = {"startup_timeout_sec": 120, "tool_timeout_sec": 3600}


def codex_limits_missing() -> bool:
    """Whether Codex's entry for moot lacks the start-up and call limits moot writes (True when unreadable)."""
    try:
        data = tomllib.loads(CLIENTS["codex"].config().read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return True
    entry = data.get("mcp_servers", {}).get(SERVER, {})
    return any(entry.get(key) != value for key, value in CODEX_LIMITS.items())


def write_codex_limits() -> None:
    """Set the limits in Codex's config.toml, keeping every other byte of the file as it was (tomlkit), and
    replacing it in one rename so a reader never sees half a file."""
    import tomlkit

    path = CLIENTS["codex"].config()
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    server = doc["mcp_servers"][SERVER]
    for key, value in CODEX_LIMITS.items():
        server[key] = value
    tmp = path.with_name(path.name + ".moot-tmp")
    tmp.write_text(tomlkit.dumps(doc), encoding="utf-8")
    tmp.replace(path)


def codex_limits_note() -> str:
    """What `moot setup codex --print` adds after the command: the limits moot then writes."""
    limits = ", ".join(f"{key} = {value}" for key, value in CODEX_LIMITS.items())
    return f"# then, under [mcp_servers.{SERVER}] in {CLIENTS['codex'].config()}: {limits}"


def already(name: str) -> str:
    """Why `moot setup NAME` has nothing to do, in one line."""
    client = client_or_fail(name)
    provided = client.provided_by()
    if provided and client.registered() != moot_command():
        return (
            f"moot's server is already in {client.label}, from {provided}; nothing changed "
            f"(moot setup {name} --force registers a second one beside it)"
        )
    return f"moot is already registered with {client.label} ({' '.join(moot_command())}); nothing changed"


def setup(name: str, force: bool = False) -> str:
    """Register moot with client NAME through its own command; what was done, in one line. A missing client is
    a UsageError; a client command that fails is a MootError with its last line. A server the plugin or the
    extension provides is left alone, and none added beside it, unless `force`."""
    client = client_or_fail(name)
    executable = shutil.which(name)
    if executable is None:
        raise UsageError(f"{name} is not on PATH: install {client.label} first (or see the command: --print)")
    steps = commands_for(name, force)
    if not steps and name == "codex" and codex_limits_missing():
        write_codex_limits()
        return f"moot is already registered with Codex; set its limits ({codex_limits_note().split(': ', 1)[1]})"
    if not steps:
        return already(name)
    for step in steps:
        r = subprocess.run(
            [executable, *step[1:]], capture_output=True, text=True, timeout=RUN_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
        if r.returncode != 0:
            last = ((r.stderr or r.stdout).strip().splitlines() or ["no output"])[-1]
            raise MootError(f"{' '.join(step[:3])} failed (exit {r.returncode}): {last}")
    if client.registered() != moot_command():
        raise MootError(f"{name} reported success but {client.config()} does not list moot's server")
    if name == "codex":
        write_codex_limits()
    return f"registered moot with {client.label}: {' '.join(moot_command())} (in {client.config()})"
