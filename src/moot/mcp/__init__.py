"""The MCP server: moot's debates as tools for coding agents (`moot mcp`). Needs the `mcp` extra."""

from collections.abc import Sequence
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from moot.mcp.host_tools import add_host_tools
from moot.mcp.server import build_server as build_base_server


def build_server(
    name: str = "moot",
    *,
    roots: Sequence[str | Path] = (),
    allow_commands: bool = False,
    allow_key_servers: bool = False,
) -> MCPServer:
    """A fresh server with every tool registered: the protocols', `show_debate`, `list_debates`, `doctor`,
    then the host seats' `submit_replies` and `cancel_debate` (`moot.mcp.host_tools`)."""
    base = build_base_server(name, roots=roots, allow_commands=allow_commands, allow_key_servers=allow_key_servers)
    return add_host_tools(base)


__all__ = ["build_server"]
