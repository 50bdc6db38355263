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


def host_names(values: list[str]) -> list[str]:
    """`--allowed-hosts` as a list of bare names: a scheme, a path or a port is bad input (one line)."""
    names = [v.strip() for value in values for v in value.split(",") if v.strip()]
    for name in names:
        bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
        if "/" in name or any(c.isspace() for c in name) or (":" in bare and not _is_ip(bare)):
            raise UsageError(f"--allowed-hosts takes host names or addresses without scheme or port (got {name!r})")
    return names


def loopback_host(host: str) -> bool:
    """`localhost` or a loopback IP literal (`check_host` allows nothing else)."""
    return host == "localhost" or (_is_ip(host) and ipaddress.ip_address(host).is_loopback)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def mcp(
    http: Annotated[
        int | None,
        typer.Option("--http", help="Serve streamable HTTP on this port (at /mcp) instead of stdio.", min=1, max=65535),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            help="Address to bind with --http (default 127.0.0.1: this machine only); the token is asked on every one."
        ),
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
    allow_key_servers: Annotated[
        bool,
        typer.Option(
            "--allow-key-servers",
            help="Let a judges file named in a tool call send keys to servers it names (api_base), and variables "
            "other than the vendors' keys moot knows.",
        ),
    ] = False,
    no_token: Annotated[
        bool,
        typer.Option(
            "--no-token",
            help="With --http on a loopback address: no bearer token (a single-user machine: any local account "
            "could use the server).",
        ),
    ] = False,
    allowed_hosts: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-hosts",
            help="With --http: host names (or addresses) clients reach the server by, comma-separated or repeated; "
            "a request whose Host or Origin names another is refused (loopback names always pass).",
        ),
    ] = None,
    confirm_over: Annotated[
        float | None,
        typer.Option(
            "--confirm-over",
            help="Ask the client's user to confirm a debate whose worst case costs more than this (USD), where "
            "the client can ask (MCP elicitation).",
            min=0,
            metavar="USD",
        ),
    ] = None,
) -> None:
    """Serve moot's MCP tools: one per protocol, then show_debate, list_debates, doctor, submit_replies and
    cancel_debate (stdio by default).

    It runs until stopped: Ctrl-C or SIGTERM ends it with `moot mcp: stopped` and exit 0."""
    from moot.cli.serving import until_stopped

    check_host(host)
    if no_token and (http is None or not loopback_host(host)):
        raise UsageError("--no-token goes with --http on a loopback address only")
    roots = check_roots(root or [])
    names = host_names(allowed_hosts or [])
    try:
        from moot.mcp import build_server
    except ImportError as e:
        if "mcp" not in str(e):
            raise
        raise MissingExtra("mcp", "mcp") from None
    server = build_server(
        roots=roots, allow_commands=allow_commands, confirm_over=confirm_over, allow_key_servers=allow_key_servers
    )
    from moot.mcp.confine import roots_banner

    said = roots_banner(roots) + "\n"  # which folders a tool call may read and write in, after where it serves
    if http is None:
        sys.stderr.write(said)
        sys.stderr.flush()
        until_stopped("moot mcp", lambda: server.run("stdio"))
        return
    from moot.mcp.http_guard import banner, http_access, serve_http

    loopback = loopback_host(host)
    access = http_access(host, names, loopback=loopback, no_token=no_token)
    sys.stderr.write("".join(line + "\n" for line in banner(host, http, access, loopback=loopback)) + said)
    sys.stderr.flush()
    until_stopped("moot mcp", lambda: serve_http(server, host, http, access))
