"""`moot setup CLIENT` against the pinned clients themselves (tests/agent_clis): moot registers its MCP server
through each client's own command, the client's own `mcp get`/`mcp list` then shows it, a second run changes
nothing, an old registration is replaced, and no key is written anywhere."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from moot.api.clients import moot_command
from moot.cli.app import main

from .real_agents import clear_vendor_env, install

pytestmark = [pytest.mark.agent_clis, pytest.mark.timeout(300)]
SECRET = "sk-moot-setup-never-written-5c1e"


@pytest.fixture(scope="module")
def cli_bin() -> Path:
    return install()


@pytest.fixture
def home(cli_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh HOME and CODEX_HOME, the pinned clients on PATH, and a key in the environment to not write."""
    clear_vendor_env(monkeypatch)
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    monkeypatch.setenv("PATH", f"{cli_bin}{os.pathsep}/usr/bin:/bin")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return home


def client(*args: str) -> str:
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def said_by(*args: str) -> str:
    """A client command's whole output (some print their lists on stderr)."""
    r = subprocess.run(list(args), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def setup(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["setup", *args])
    out = capsys.readouterr()
    assert code == 0 and out.err == "", out.err
    return out.out


def every_file(home: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in home.rglob("*") if p.is_file())


def test_setup_codex_then_codex_mcp_get_shows_moot_and_a_second_run_changes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moot = moot_command()
    assert Path(moot[0]).is_absolute()
    assert setup(capsys, "codex").startswith("registered moot with Codex: ")
    shown = client("codex", "mcp", "get", "moot", "--json")
    entry = json.loads(shown)
    assert [entry["transport"]["command"], *entry["transport"]["args"]] == moot
    # Codex's own reading of the limits moot wrote beside the command (its defaults: 10 s to start, 60 s a call)
    assert (entry["startup_timeout_sec"], entry["tool_timeout_sec"]) == (120, 3600), entry
    config = (home / ".codex" / "config.toml").read_bytes()
    again = setup(capsys, "codex")
    assert again.startswith("moot is already registered with Codex") and again.rstrip().endswith("nothing changed")
    assert (home / ".codex" / "config.toml").read_bytes() == config
    assert SECRET not in every_file(home)


def test_setup_claude_then_claude_mcp_get_shows_moot_and_a_second_run_changes_nothing(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    moot = moot_command()
    assert "registered moot with Claude Code" in setup(capsys, "claude")
    shown = client("claude", "mcp", "get", "moot")
    assert f"Command: {moot[0]}" in shown and f"Args: {' '.join(moot[1:])}" in shown and "User config" in shown
    config = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert "nothing changed" in setup(capsys, "claude")
    assert json.loads((home / ".claude.json").read_text())["mcpServers"] == config
    assert SECRET not in every_file(home)


def test_setup_gemini_and_a_registration_of_another_moot_is_replaced(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = {"mcpServers": {"moot": {"command": "/old/venv/bin/moot", "args": ["mcp"]}}}  # as gemini mcp add writes it
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(old))
    listed = setup(capsys, "--list")
    assert "gemini  Gemini CLI   found" in listed and "moot registered as /old/venv/bin/moot mcp" in listed
    print_only = setup(capsys, "gemini", "--print")
    assert print_only.splitlines() == [
        "gemini mcp remove --scope user moot",
        "gemini mcp add --scope user moot " + " ".join(moot_command()),
    ]
    assert "registered moot with Gemini CLI" in setup(capsys, "gemini")
    settings = json.loads((home / ".gemini" / "settings.json").read_text())["mcpServers"]["moot"]
    assert [settings["command"], *settings["args"]] == moot_command()
    assert "nothing changed" in setup(capsys, "gemini")
    assert SECRET not in every_file(home)


def test_doctor_and_setup_list_report_each_registration(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    setup(capsys, "codex")
    assert main(["doctor", "--format", "json"]) == 0
    clients = {c["client"]: c for c in json.loads(capsys.readouterr().out)["clients"]}
    assert clients["codex"]["registered"] and clients["codex"]["this_moot"]
    assert not clients["claude"]["registered"] and clients["claude"]["executable"]
    listed = setup(capsys, "--list").splitlines()
    assert listed[1].startswith("codex   Codex        found (") and listed[1].endswith("; moot registered")
    assert listed[0].endswith("moot not registered (moot setup claude)")  # claude is here: it can be set up


ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_claude_plugin_is_moot_registered_and_setup_adds_no_second_server(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`claude plugin install` from this repository's marketplace, as a user does: moot sees the plugin's
    server, and `moot setup claude` leaves Claude Code with that one server (until told --force)."""
    client("claude", "plugin", "marketplace", "add", str(ROOT))
    client("claude", "plugin", "install", "moot@moot")
    listed = setup(capsys, "--list").splitlines()
    assert listed[0].endswith("; moot registered by the moot plugin (moot@moot)"), listed[0]
    said = setup(capsys, "claude")
    assert "from the moot plugin (moot@moot); nothing changed" in said and "--force" in said
    servers = [line for line in said_by("claude", "mcp", "list").splitlines() if "moot" in line]
    assert [line.split(":", 3)[:3] for line in servers] == [["plugin", "moot", "moot"]], servers  # one: the plugin's
    client("claude", "plugin", "disable", "moot@moot")
    assert setup(capsys, "--list").splitlines()[0].endswith("; moot not registered (moot setup claude)")


def test_the_installed_gemini_extension_is_moot_registered_and_setup_does_not_shadow_it(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`gemini extensions install` of this repository: moot sees the extension's server, and `moot setup
    gemini` writes no user-scope `moot` (Gemini CLI would run it instead of the extension's)."""
    r = subprocess.run(
        ["gemini", "extensions", "install", str(ROOT), "--consent", "--skip-settings"],
        input="y\n",  # trust the folder the extension comes from
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "installed successfully" in r.stdout + r.stderr, r.stdout + r.stderr
    extension = home / ".gemini" / "extensions" / "moot"
    listed = setup(capsys, "--list").splitlines()
    assert listed[2].endswith(f"; moot registered by the moot extension ({extension})"), listed[2]
    assert "from the moot extension" in setup(capsys, "gemini")
    settings = (
        json.loads((home / ".gemini" / "settings.json").read_text())
        if (home / ".gemini" / "settings.json").exists()
        else {}
    )
    assert "moot" not in settings.get("mcpServers", {})
    servers = [line for line in said_by("gemini", "mcp", "list").splitlines() if "moot" in line]
    assert len(servers) == 1 and "moot (from moot)" in servers[0], servers  # one: the extension's
