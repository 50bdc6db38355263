"""The table of `moot`'s sub-commands and their one-line helps, where each command's code is, and `moot --help`
laid out from the table as click would lay it out: read by the fast path in `moot.cli.app` and by the typer
group in `moot.cli.group`."""

from __future__ import annotations

DESCRIPTION = (
    "LLM judges with assigned stances debate an artifact, a decision or a position, and end in a verdict you can trust."
)

# name -> the one-line help `moot --help` lists, in the order they are listed
COMMANDS: dict[str, str] = {
    "evaluate": "Evaluate an artifact by a debate between judges with stances.",
    "decide": "Pick between options: Risk, Value and Effort judges debate them.",
    "challenge": "Defend a position against challengers attacking it at once.",
    "batch": "Debate every item of a JSONL file; run it again to continue it.",
    "bench": "Does a debate beat one judge or a vote? Measured on gold items.",
    "demo": "Watch a whole debate of scripted judges (no API key needed).",
    "doctor": "Which judges are usable here, and why not (keys, SDKs, PATH).",
    "show": "Print a debate from the store again, finished or not.",
    "list": "List recent debates.",
    "resume": "Continue a debate that was interrupted or failed (an outage).",
    "report": "Write a debate's report as one self-contained HTML page.",
    "mcp": "Serve moot's tools to coding agents (Model Context Protocol).",
    "view": "Browse every debate, batch and bench in a browser (read-only).",
}
# the commands that do not follow the rule of `command_target`: the three that read the store share a module
_ELSEWHERE = {
    "show": "moot.cli.history_cmds:show",
    "list": "moot.cli.history_cmds:list_debates",
    "resume": "moot.cli.history_cmds:resume",
}
OPTIONS = [("--version", "Print moot's version and exit."), ("--help", "Show this message and exit.")]


def command_target(name: str) -> str:
    """Where a command's typer function is, as `module:function`: `moot.cli.<name>_cmd:<name>`, so that
    adding a command is its module and one line in `COMMANDS`."""
    return _ELSEWHERE.get(name, f"moot.cli.{name}_cmd:{name}")


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
    lines = ["Usage: moot [OPTIONS] COMMAND [ARGS]...", "", about, "", "Options:", *_definitions(OPTIONS, width)]
    return "\n".join([*lines, "", "Commands:", *_definitions(list(COMMANDS.items()), width)]) + "\n"
