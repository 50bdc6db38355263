"""The MCP server: moot's debates as tools for coding agents (`moot mcp`). Needs the `mcp` extra."""

from collections.abc import Sequence
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from moot.mcp.host_tools import HOST_TOOLS
from moot.mcp.prompts import add_prompts
from moot.mcp.resources import add_resources
from moot.mcp.server import build_server as build_base_server
from moot.mcp.server import protocol_tools
from moot.mcp.tasks import DebateTasks


def build_server(
    name: str = "moot",
    *,
    roots: Sequence[str | Path] = (),
    allow_commands: bool = False,
    confirm_over: float | None = None,
    allow_key_servers: bool = False,
) -> MCPServer:
    """A fresh server with every tool registered: the protocols', `show_debate`, `list_debates`, `doctor`,
    then the host seats' `submit_replies` and `cancel_debate` (`moot.mcp.host_tools`); the slash-command
    prompts (`moot.mcp.prompts`), the tasks extension (`moot.mcp.tasks`), and the stored debates and usable
    judges as resources (`moot.mcp.resources`). A client that can ask its user confirms a debate whose worst
    case passes `confirm_over` USD, or whose panel runs programs (`moot.mcp.confirm`)."""
    # a protocol tool's debate as a durable task, for clients with tasks
    tasks = DebateTasks(protocol_tools(), allow_commands=allow_commands)
    server = build_base_server(
        name,
        roots=roots,
        allow_commands=allow_commands,
        allow_key_servers=allow_key_servers,
        more=HOST_TOOLS,
        extensions=[tasks],
        confirm_over=confirm_over,
    )
    add_prompts(server)
    add_resources(server)
    return server


__all__ = ["build_server"]
