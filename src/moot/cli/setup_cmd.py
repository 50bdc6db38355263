"""`moot setup CLIENT`: register moot's MCP server with Claude Code, Codex or Gemini CLI through the client's
own command (the work is in `moot.api.clients`); `--print` shows the commands, `--list` each client's state."""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from moot.api.clients import (
    already,
    client_or_fail,
    client_rows,
    codex_limits_missing,
    codex_limits_note,
    commands_for,
    describe,
)
from moot.api.clients import setup as register
from moot.cli.output import emit
from moot.errors import UsageError


def setup(
    client: Annotated[str | None, typer.Argument(help="claude, codex or gemini.", show_default=False)] = None,
    print_only: Annotated[
        bool, typer.Option("--print", help="Print the commands that would register moot; run nothing.")
    ] = False,
    list_clients: Annotated[
        bool, typer.Option("--list", help="Which clients are found here, and whether moot is registered with each.")
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Register moot's server even where the moot plugin or extension already provides one."
        ),
    ] = False,
) -> None:
    """Register moot's MCP server with a coding agent (user scope), with the absolute path of this moot; a second
    run changes nothing. No key is written: the server reads the vendors' variables from its environment."""
    if list_clients:
        if client is not None or print_only:
            raise UsageError("--list takes no client and no --print")
        if force:
            raise UsageError("--force goes with a client (moot setup claude --force), not with --list")
        emit("".join(describe(row) + "\n" for row in client_rows()))
        return
    if client is None:
        raise UsageError("name a client: moot setup claude|codex|gemini (or moot setup --list)")
    if print_only:
        client_or_fail(client)
        steps = commands_for(client, force)
        text = "".join(shlex.join(step) + "\n" for step in steps) or _nothing_to_do(client)
        if client == "codex" and (steps or codex_limits_missing()):
            text += codex_limits_note() + "\n"
        emit(text)
        return
    emit(register(client, force) + "\n")


def _nothing_to_do(client: str) -> str:
    """`--print`'s one comment line when nothing would run (the words `moot setup` itself prints)."""
    from moot.api.clients import CLIENTS, moot_command

    if CLIENTS[client].registered() == moot_command():
        return f"# moot is already registered with {client}\n"
    return f"# {already(client)}\n"
