"""`moot setup` without the clients installed: bad input is one line and exit 2, `--print` shows what would run,
`--list` and `moot doctor` say what is found. (The pinned clients themselves: tests/test_setup_real.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moot.api.clients import codex_limits_note, moot_command
from moot.cli.app import main


@pytest.fixture(autouse=True)
def no_clients(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    return home


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["setup", "codex"], "codex is not on PATH: install Codex first (or see the command: --print)"),
        (["setup", "claude"], "claude is not on PATH: install Claude Code first (or see the command: --print)"),
        (["setup", "cursor"], "unknown client 'cursor': choose claude, codex or gemini"),
        (["setup"], "name a client: moot setup claude|codex|gemini (or moot setup --list)"),
        (["setup", "codex", "--list"], "--list takes no client and no --print"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == f"moot: error: {message}\n"


def test_print_shows_each_clients_command_with_this_moots_absolute_path(capsys: pytest.CaptureFixture[str]) -> None:
    moot = " ".join(moot_command())
    assert Path(moot_command()[0]).is_absolute() and moot_command()[-1] == "mcp"
    expected = {
        "claude": f"claude mcp add --scope user moot -- {moot}",
        "codex": f"codex mcp add moot -- {moot}",
        "gemini": f"gemini mcp add --scope user moot {moot}",
    }
    for name, line in expected.items():
        assert main(["setup", name, "--print"]) == 0
        note = f"{codex_limits_note()}\n" if name == "codex" else ""  # Codex's start-up and call limits
        assert capsys.readouterr().out == line + "\n" + note
    assert "startup_timeout_sec = 120, tool_timeout_sec = 3600" in codex_limits_note()


def test_print_replaces_another_moot_and_says_when_nothing_is_to_do(
    no_clients: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    codex = no_clients / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('[mcp_servers.moot]\ncommand = "/old/moot"\nargs = ["mcp"]\n')
    assert main(["setup", "codex", "--print"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "codex mcp remove moot",
        f"codex mcp add moot -- {' '.join(moot_command())}",
        codex_limits_note(),
    ]
    command, *args = moot_command()
    (codex / "config.toml").write_text(
        f"[mcp_servers.moot]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"
    )
    assert main(["setup", "codex", "--print"]) == 0  # registered, but without the limits moot writes
    assert capsys.readouterr().out == f"# moot is already registered with codex\n{codex_limits_note()}\n"
    with (codex / "config.toml").open("a") as f:
        f.write("startup_timeout_sec = 120\ntool_timeout_sec = 3600\n")
    assert main(["setup", "codex", "--print"]) == 0
    assert capsys.readouterr().out == "# moot is already registered with codex\n"
    assert main(["setup", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed == [
        "claude  Claude Code  not found on PATH; moot not registered",
        "codex   Codex        not found on PATH; moot registered",
        "gemini  Gemini CLI   not found on PATH; moot not registered",
    ]


def test_doctor_lists_the_clients_in_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    # a client that is not here gets no `moot setup` advice: there is nothing to register with yet
    assert "agents: claude  Claude Code  not found on PATH; moot not registered\n" in text
    assert "moot setup" not in text
    assert main(["doctor", "--format", "json"]) == 0
    clients = json.loads(capsys.readouterr().out)["clients"]
    assert [c["client"] for c in clients] == ["claude", "codex", "gemini"]
    assert not any(c["registered"] or c["executable"] for c in clients)


def fake_client(home: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for a client on PATH that logs each `mcp` command it is given and does nothing else (moot
    doctor asks it for its version too)."""
    bin_dir = home / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    script.write_text(f'#!/bin/sh\n[ "$1" = mcp ] && echo "$*" >> "{home}/{name}.runs"\nexit 0\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return home / f"{name}.runs"


def install_claude_plugin(home: Path, enabled: bool = True) -> None:
    """What `claude plugin install moot@moot` leaves in ~/.claude (seen from the pinned Claude Code)."""
    plugins = home / ".claude" / "plugins"
    plugins.mkdir(parents=True)
    entry = {"scope": "user", "installPath": str(plugins / "cache" / "moot" / "moot" / "0.1.0"), "version": "0.1.0"}
    (plugins / "installed_plugins.json").write_text(json.dumps({"version": 2, "plugins": {"moot@moot": [entry]}}))
    (home / ".claude" / "settings.json").write_text(json.dumps({"enabledPlugins": {"moot@moot": enabled}}))


def install_gemini_extension(home: Path, disabled: bool = False) -> None:
    """What `gemini extensions install` leaves in ~/.gemini/extensions (seen from the pinned Gemini CLI)."""
    folder = home / ".gemini" / "extensions"
    (folder / "moot").mkdir(parents=True)
    root = Path(__file__).resolve().parent.parent
    (folder / "moot" / "gemini-extension.json").write_text((root / "gemini-extension.json").read_text())
    override = f"!{home}/*" if disabled else f"{home}/*"
    (folder / "extension-enablement.json").write_text(json.dumps({"moot": {"overrides": [override]}}))


def test_the_claude_plugin_counts_as_registered_and_setup_adds_no_second_server(
    no_clients: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = fake_client(no_clients, "claude", monkeypatch)
    install_claude_plugin(no_clients)
    assert main(["setup", "--list"]) == 0
    claude_line = capsys.readouterr().out.splitlines()[0]
    assert claude_line.endswith("; moot registered by the moot plugin (moot@moot)"), claude_line
    assert main(["doctor", "--format", "json"]) == 0
    [row] = [c for c in json.loads(capsys.readouterr().out)["clients"] if c["client"] == "claude"]
    assert row["registered"] is True and row["provided_by"] == "the moot plugin (moot@moot)" and row["command"] is None
    assert main(["setup", "claude"]) == 0
    said = capsys.readouterr().out
    assert "already in Claude Code, from the moot plugin (moot@moot); nothing changed" in said and "--force" in said
    assert not runs.exists()  # claude was never asked to add a server
    assert main(["setup", "claude", "--print"]) == 0
    assert capsys.readouterr().out.startswith("# moot's server is already in Claude Code")
    assert main(["setup", "claude", "--print", "--force"]) == 0
    assert capsys.readouterr().out == f"claude mcp add --scope user moot -- {' '.join(moot_command())}\n"
    assert main(["setup", "claude", "--force"]) == 3  # asked: the add runs (the stand-in registers nothing)
    assert runs.read_text().startswith("mcp add --scope user moot -- ")
    capsys.readouterr()
    assert main(["setup", "--list", "--force"]) == 2


def test_a_disabled_plugin_or_extension_is_not_a_registration(
    no_clients: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_claude_plugin(no_clients, enabled=False)
    install_gemini_extension(no_clients, disabled=True)
    assert main(["setup", "--list"]) == 0
    assert [line.split("; ")[1] for line in capsys.readouterr().out.splitlines()] == ["moot not registered"] * 3


def test_the_gemini_extension_counts_as_registered_and_a_second_registration_is_named(
    no_clients: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = fake_client(no_clients, "gemini", monkeypatch)
    install_gemini_extension(no_clients)
    extension = no_clients / ".gemini" / "extensions" / "moot"
    assert main(["setup", "--list"]) == 0
    gemini_line = capsys.readouterr().out.splitlines()[2]
    assert gemini_line.endswith(f"; moot registered by the moot extension ({extension})"), gemini_line
    assert main(["setup", "gemini"]) == 0
    assert "already in Gemini CLI, from the moot extension" in capsys.readouterr().out and not runs.exists()
    # a user-scope server beside the extension's (it hides the extension's one): said, with how to drop it
    settings = {"mcpServers": {"moot": {"command": "/old/moot", "args": ["mcp"]}}}
    (no_clients / ".gemini" / "settings.json").write_text(json.dumps(settings))
    assert main(["doctor"]) == 0
    assert (
        "moot registered twice: by the moot extension "
        f"({extension}) and as /old/moot mcp (gemini mcp remove --scope user moot drops the second)"
    ) in capsys.readouterr().out


def test_the_server_the_plugin_starts_says_the_plugin_has_moot(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the plugin's own server (its .mcp.json sets MOOT_SERVED_BY), as /moot:doctor reads it: Claude
    Code has moot even when the plugin was loaded from a folder (`--plugin-dir`) and no file records it."""
    server = json.loads((Path(__file__).resolve().parent.parent / "plugins" / "moot" / ".mcp.json").read_text())
    monkeypatch.setenv("MOOT_SERVED_BY", server["mcpServers"]["moot"]["env"]["MOOT_SERVED_BY"])
    assert main(["doctor", "--format", "json"]) == 0
    [row] = [c for c in json.loads(capsys.readouterr().out)["clients"] if c["client"] == "claude"]
    assert row["registered"] is True and row["provided_by"] == "the moot plugin (this server)"
