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
        "claude  Claude Code  not found on PATH; moot not registered (moot setup claude)",
        "codex   Codex        not found on PATH; moot registered",
        "gemini  Gemini CLI   not found on PATH; moot not registered (moot setup gemini)",
    ]


def test_doctor_lists_the_clients_in_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor"]) == 0
    text = capsys.readouterr().out
    assert "agents: claude  Claude Code  not found on PATH; moot not registered (moot setup claude)\n" in text
    assert main(["doctor", "--format", "json"]) == 0
    clients = json.loads(capsys.readouterr().out)["clients"]
    assert [c["client"] for c in clients] == ["claude", "codex", "gemini"]
    assert not any(c["registered"] or c["executable"] for c in clients)
