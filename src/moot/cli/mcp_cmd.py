"""`moot mcp`: serve moot's tools to a coding agent over the Model Context Protocol (stdio, or HTTP)."""

from __future__ import annotations

import ipaddress
import sys
from pathlib import Path
from typing import Annotated

import typer

from moot.errors import MissingExtra, UsageError


def check_host(host: str) -> str:
    """Only IP literals and localhost: a typo should fail here, not bind somewhere unexpected."""
    if host == "localhost":
        return host
    try:
        ipaddress.ip_address(host)
    except ValueError:
        raise UsageError(f"--host must be an IP address or localhost (got {host!r})") from None
    return host


def check_roots(roots: list[Path]) -> list[Path]:
    """Each `--root` must be an existing folder: a typo should fail at start, not refuse every call later."""
    for r in roots:
        if not r.is_dir():
            raise UsageError(f"--root {r} is not a folder")
    return [r.resolve() for r in roots]


def mcp(
    http: Annotated[
        int | None,
        typer.Option("--http", help="Serve streamable HTTP on this port (at /mcp) instead of stdio.", min=1, max=65535),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to bind with --http (default 127.0.0.1: this machine only).")
    ] = "127.0.0.1",
    root: Annotated[
        list[Path] | None,
        typer.Option(
            "--root",
            help="A folder the tools may read and write besides the client's roots (else the working folder); "
            "repeatable.",
        ),
    ] = None,
    allow_commands: Annotated[
        bool,
        typer.Option(
            "--allow-commands", help="Let a judges file named in a tool call run programs (command: and cli: judges)."
        ),
    ] = False,
) -> None:
    """Serve moot's MCP tools: one per protocol, then show_debate, list_debates and doctor (stdio by default).

    It runs until stopped: Ctrl-C or SIGTERM ends it with `moot mcp: stopped` and exit 0."""
    from moot.cli.serving import until_stopped

    check_host(host)
    roots = check_roots(root or [])
    try:
        from moot.mcp import build_server
    except ImportError as e:
        if "mcp" not in str(e):
            raise
        raise MissingExtra("mcp", "mcp") from None
    server = build_server(roots=roots, allow_commands=allow_commands)
    if http is None:
        until_stopped("moot mcp", lambda: server.run("stdio"))
    else:
        shown = f"[{host}]" if ":" in host else host
        where = "this machine only" if host in ("127.0.0.1", "localhost", "::1") else "reachable from other machines"
        sys.stderr.write(f"moot mcp: serving streamable HTTP at http://{shown}:{http}/mcp ({where}); Ctrl-C stops it\n")
        sys.stderr.flush()
        until_stopped("moot mcp", lambda: server.run("streamable-http", host=host, port=http))
