"""The table of `moot`'s sub-commands and their one-line helps, and `moot --help` laid out from it as
click would lay it out: read by the fast path in `moot.cli.app` and by the typer group in `moot.cli.group`."""

from __future__ import annotations

DESCRIPTION = (
    "LLM judges with assigned stances debate an artifact, a decision or a position, and end in a verdict you can trust."
)

# name -> ("module:function", the one-line help `moot --help` lists), in the order they are listed
COMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": ("moot.cli.evaluate_cmd:evaluate", "Evaluate an artifact by a debate between judges with stances."),
    "decide": ("moot.cli.decide_cmd:decide", "Pick between options: Risk, Value and Effort judges debate them."),
    "challenge": ("moot.cli.challenge_cmd:challenge", "Defend a position against challengers attacking it at once."),
    "batch": ("moot.cli.batch_cmd:batch", "Debate every item of a JSONL file; run it again to continue it."),
    "bench": ("moot.cli.bench_cmd:bench", "Does a debate beat one judge or a vote? Measured on gold items."),
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
