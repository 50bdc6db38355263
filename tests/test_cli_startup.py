"""The command starts fast: `moot --help` and `moot --version` load no command (nor typer), a command's
module is imported only when that command runs, and the help that skips typer is the help typer prints.
Timings are printed by benchmarks/bench_cli.py; these tests hold what makes them fast."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from moot.cli.app import commands, main, top_help

ROOT = Path(__file__).resolve().parent.parent


def loaded_after(argv: list[str], *, cwd: Path = ROOT) -> tuple[str, list[str]]:
    """What `moot ARGV` prints, and which modules it had imported by the end (fresh process)."""
    code = (
        "import sys, io, contextlib, json\n"
        "from moot.cli.app import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main({argv!r})\n"
        "print(json.dumps([out.getvalue(), sorted(sys.modules)]))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    printed, modules = json.loads(r.stdout.strip().splitlines()[-1])
    return printed, modules


def command_modules(modules: list[str]) -> set[str]:
    return {m for m in modules if m.startswith("moot.cli.") and m.endswith(("_cmd", "_cmds"))}


# what takes tenths of a second each to import, and none of which a server needs before a client's first call
HEAVY = {"openai", "anthropic", "google.genai", "detect_secrets", "jinja2", "genai_prices", "requests"}


@pytest.mark.parametrize("argv", [[], ["--help"], ["--version"]])
def test_top_level_help_and_version_load_no_command_and_no_typer(argv: list[str]) -> None:
    printed, modules = loaded_after(argv)
    assert printed
    assert command_modules(modules) == set()
    assert not {"typer", "pydantic", "yaml", "mcp", "rich", *HEAVY} & set(modules)
    assert not [m for m in modules if m.startswith("moot.protocols.")]  # the registry's lines, no protocol


def test_help_lists_every_command_with_its_one_line_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name, short_help in commands().items():
        assert f"  {name}" in out and short_help in out
    assert "--version" in out


@pytest.mark.parametrize("columns", ["80", "60", "200"])
def test_the_quick_help_is_what_typer_would_print(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from moot.cli.group import app

    monkeypatch.setenv("COLUMNS", columns)
    command = typer.main.get_command(app)
    ctx = command.make_context("moot", ["--help"], resilient_parsing=True)
    assert top_help() == command.get_help(ctx) + "\n"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"moot {version('moot')}\n"
    assert main(["--version", "list"]) == 0  # through typer too: the option is eager
    assert capsys.readouterr().out == f"moot {version('moot')}\n"


def test_a_command_loads_only_its_own_module() -> None:
    """A protocol's command is built from its spec: that protocol is loaded, no other and no other command."""
    printed, modules = loaded_after(["evaluate", "--help"])
    assert "--solution" in printed
    assert command_modules(modules) == {"moot.cli.protocol_cmd"}
    assert "moot.protocols.evaluate" in modules
    assert not {"moot.protocols.decide", "moot.protocols.challenge"} & set(modules)
    assert not {"openai", "anthropic", "google.genai", "mcp"} & set(modules)


def test_every_command_in_the_table_loads_and_has_help() -> None:
    from moot.cli.group import load_command

    for name in commands():
        command = load_command(name)
        assert command.name == name
        assert command.help, f"{name} has no help text"


def test_a_misspelt_command_is_exit_2_with_a_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evalute"]) == 2
    assert capsys.readouterr().err.strip() == "moot: error: No such command 'evalute'. Did you mean 'evaluate'?"


def test_show_prints_text_with_the_protocols_renderer(tmp_path: Path) -> None:
    """`show` runs without evaluate's module having been loaded for it: the renderer must still apply."""
    env_code = "import os; os.environ['MOOT_HOME'] = {!r}\n".format(str(tmp_path / "home"))
    run = [sys.executable, "-c", env_code + "from moot.cli.app import run; run()"]
    demo = subprocess.run(
        [*run, "demo", "--format", "json", "--reports-dir", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert demo.returncode == 0, demo.stderr
    debate_id = json.loads(demo.stdout)["debate_id"]
    code = env_code + "from moot.cli.app import run; run()"
    shown = subprocess.run(
        [sys.executable, "-c", code, "show", debate_id], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert shown.returncode == 0, shown.stderr
    assert not shown.stdout.startswith("debate_id:")  # YAML would mean the text renderer was never registered
    assert "CONDITIONAL" in shown.stdout


def _run_in_child(code: str, cwd: Path) -> list[str]:
    r = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    loaded: list[str] = json.loads(r.stdout.strip().splitlines()[-1])
    return loaded


def test_moot_mcp_loads_no_vendor_sdk_nor_secret_detectors_before_it_serves(tmp_path: Path) -> None:
    """`moot mcp` must answer a client's `initialize` quickly (a client gives a server a few seconds, and a
    busy machine stretches each one): what it imports before its transport starts is the MCP SDK, the
    protocols' tools and their models, not a judge's SDK, the secret screen or the prompt templates'
    engine, which the first debate loads."""
    code = (
        "import json, os, sys\n"
        f"os.environ['MOOT_HOME'] = {str(tmp_path / 'home')!r}\n"
        "import moot.cli.serving\n"
        "seen = []\n"
        "moot.cli.serving.until_stopped = lambda name, serve: seen.append(sorted(sys.modules))\n"
        "from moot.cli.app import main\n"
        "assert main(['mcp']) == 0\n"
        "print(json.dumps(seen[0]))\n"
    )
    modules = set(_run_in_child(code, tmp_path))
    assert "mcp.server.mcpserver" in modules and "moot.protocols.evaluate" in modules  # it did build the server
    assert not HEAVY & modules


def test_a_protocols_function_imports_that_protocol_alone(tmp_path: Path) -> None:
    """`moot.evaluate_sync(...)` starts its debate without importing every other protocol first (nor a
    judge's SDK, which the judges built for the debate load)."""
    code = "import json, sys\nimport moot\nmoot.evaluate_sync, moot.evaluate\nprint(json.dumps(sorted(sys.modules)))\n"
    modules = set(_run_in_child(code, tmp_path))
    assert "moot.protocols.evaluate" in modules
    assert not {"moot.protocols.decide", "moot.protocols.challenge"} & modules
    assert not HEAVY & modules
