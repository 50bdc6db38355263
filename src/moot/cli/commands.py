"""The table of `moot`'s sub-commands and their one-line helps, where each command's code is, and `moot --help`
laid out from the table as click would lay it out: read by the fast path in `moot.cli.app` and by the typer
group in `moot.cli.group`.

The protocols' commands come first, one per protocol the registry lists (`moot.protocols`: its entries and
their one-line helps, read without importing a protocol), built from each one's spec by
`moot.cli.protocol_cmd`; a protocol is named nowhere here. Then moot's own commands (`OWN`).
"""

from __future__ import annotations

DESCRIPTION = (
    "LLM judges with assigned stances debate an artifact, a decision or a position, and end in a verdict you can trust."
)

# moot's own commands -> the one-line help `moot --help` lists, in the order they are listed (after the protocols')
OWN: dict[str, str] = {
    "batch": "Debate every item of a JSONL file; run it again to continue it.",
    "bench": "Does a debate beat one judge or a vote? Measured on gold items.",
    "demo": "Watch a whole debate of scripted judges (no API key needed).",
    "doctor": "Which judges are usable here, and why not (keys, SDKs, PATH).",
    "show": "Print a debate from the store again, finished or not.",
    "list": "List recent debates.",
    "resume": "Continue a debate that was interrupted or failed (an outage).",
    "reply": "Answer as a host seat; the waiting debate goes on.",
    "cancel": "End a waiting or interrupted debate as cancelled.",
    "report": "Write a debate's report as one self-contained HTML page.",
    "mcp": "Serve moot's tools to coding agents (Model Context Protocol).",
    "setup": "Register moot's MCP server with Claude Code, Codex or Gemini CLI.",
    "view": "Browse every debate, batch and bench in a browser (read-only).",
    "trust": "Trust a moot.yaml that runs programs, by its content.",
}
# the commands that do not follow the rule of `command_target`: the three that read the store share a module
_ELSEWHERE = {
    "show": "moot.cli.history_cmds:show",
    "list": "moot.cli.history_cmds:list_debates",
    "resume": "moot.cli.history_cmds:resume",
    "cancel": "moot.cli.reply_cmd:cancel",
}
OPTIONS = [("--version", "Print moot's version and exit."), ("--help", "Show this message and exit.")]


def protocol_commands() -> dict[str, str]:
    """Each protocol's command -> its one-line help, in the registry's order (a protocol named like one of
    moot's own commands gets no command)."""
    from moot.protocols import entries, one_line_help

    return {e.name: one_line_help(e.name) for e in entries() if e.name not in OWN}


def commands() -> dict[str, str]:
    """Every sub-command -> its one-line help, in the order `moot --help` lists them."""
    return protocol_commands() | OWN


def command_target(name: str) -> str:
    """Where one of moot's own commands' typer function is, as `module:function`: `moot.cli.<name>_cmd:<name>`,
    so that adding a command is its module and one line in `OWN`. (A protocol's command is built from its
    spec: `moot.cli.protocol_cmd`.)"""
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
    return "\n".join([*lines, "", "Commands:", *_definitions(list(commands().items()), width)]) + "\n"
