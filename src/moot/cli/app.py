"""The `moot` command: the table of sub-commands, and the one place where errors become exit codes.

A sub-command's module is imported only when it runs or shows its help (`moot.cli.group`). `moot`,
`moot --help` and `moot --version` import neither typer nor any command: they are answered from the
table here, in click's own layout (a test holds the two to the same text), because typer's import alone
takes most of a 150 ms budget.

Exit codes: 0 done; 1 a gate failed (`--fail-under`, `--require`); 2 bad input (one line on stderr, no
LLM call made); 3 the debate could not reach a trustworthy end; 130 interrupted (resumable).
"""

from __future__ import annotations

import sys
from typing import Any

from moot.errors import DebateAborted, Interrupted, MootError, UsageError

DESCRIPTION = (
    "LLM judges with assigned stances debate an artifact, a decision or a position, and end in a verdict you can trust."
)

# name -> ("module:function", the one-line help `moot --help` lists), in the order they are listed
COMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("moot.cli.evaluate_cmd:evaluate", "Evaluate an artifact by a debate between judges with stances."),
    "decide": ("moot.cli.decide_cmd:decide", "Pick between options: Risk, Value and Effort judges debate them."),
    "challenge": ("moot.cli.challenge_cmd:challenge", "Defend a position against challengers attacking it at once."),
    "demo": ("moot.cli.demo_cmd:demo", "Watch a whole debate of scripted judges (no API key needed)."),
    "doctor": ("moot.cli.doctor_cmd:doctor", "Which judges are usable here, and why not (keys, SDKs, PATH)."),
    "show": ("moot.cli.history_cmds:show", "Print a debate from the store again, finished or not."),
    "list": ("moot.cli.history_cmds:list_debates", "List recent debates."),
    "resume": ("moot.cli.history_cmds:resume", "Continue a debate that was interrupted or failed (an outage)."),
    "report": ("moot.cli.report_cmd:report", "Write a debate's report as one self-contained HTML page."),
    "mcp": ("moot.cli.mcp_cmd:mcp", "Serve moot's tools to coding agents (Model Context Protocol)."),
}
OPTIONS = [("--version", "Print moot's version and exit."), ("--help", "Show this message and exit.")]


def version_line() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"moot {version('moot')}"
    except PackageNotFoundError:  # a source tree that was never installed
        return "moot (version unknown: not installed)"


def _definitions(rows: list[tuple[str, str]], width: int) -> list[str]:
    """click's `write_dl` inside a section: names, two spaces, the help wrapped beside them."""
    import textwrap

    first = min(max(len(name) for name, _ in rows), 30) + 2
    out = []
    for name, text in rows:
        lines = textwrap.wrap(text, max(width - first - 2, 10), replace_whitespace=False) or [""]
        pad = " " * (first - len(name)) if len(name) <= first - 2 else "\n" + " " * (first + 2)
        out.append(f"  {name}{pad}{lines[0]}")
        out += [" " * (first + 2) + line for line in lines[1:]]
    return out


def top_help() -> str:
    """`moot --help`, as click would lay it out for this terminal."""
    import shutil
    import textwrap

    width = max(min(shutil.get_terminal_size().columns, 80) - 2, 50)
    about = textwrap.fill(DESCRIPTION, width, initial_indent="  ", subsequent_indent="  ", replace_whitespace=False)
    commands = [(name, short) for name, (_, short) in COMMANDS.items()]
    lines = ["Usage: moot [OPTIONS] COMMAND [ARGS]...", "", about, "", "Options:", *_definitions(OPTIONS, width)]
    return "\n".join([*lines, "", "Commands:", *_definitions(commands, width)]) + "\n"


def _quick(args: list[str]) -> bool:
    """Answer `moot`, `moot --help` and `moot --version` without typer; False for anything else."""
    if args in ([], ["--help"]):
        sys.stdout.write(top_help())
    elif args == ["--version"]:
        sys.stdout.write(version_line() + "\n")
    else:
        return False
    return True


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"moot: error: {message}\n")
    return code


def _run_group(argv: list[str] | None) -> Any:
    import typer

    from moot.cli.group import app

    try:
        return typer.main.get_command(app).main(args=argv, prog_name="moot", standalone_mode=False)
    except typer.Abort:
        return 130


def main(argv: list[str] | None = None) -> int:
    if _quick(sys.argv[1:] if argv is None else list(argv)):
        return 0
    try:
        rv = _run_group(argv)
    except KeyboardInterrupt:
        return _fail("interrupted: the debate can be continued with 'moot resume DEBATE_ID' (see 'moot list')", 130)
    except UsageError as e:
        return _fail(str(e), 2)
    except Interrupted as e:
        return _fail(str(e), 130)
    except DebateAborted as e:
        return _fail(str(e), 3)
    except MootError as e:
        return _fail(str(e), 3)
    except BrokenPipeError:
        return 0
    except Exception as e:
        # click's usage errors (typer vendors its own copy of click, so match by shape, not by class)
        if type(e).__name__ == "NoArgsIsHelpError":  # the help text has been printed already
            return 0
        if hasattr(e, "format_message") and getattr(e, "exit_code", None) == 2:
            return _fail(e.format_message().replace("\n", " "), 2)
        raise
    if rv == 130:  # typer turns a KeyboardInterrupt outside a debate into a silent exit 130
        return _fail("interrupted", 130)
    return rv if isinstance(rv, int) else 0


def run() -> None:
    sys.exit(main())
