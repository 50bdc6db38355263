"""The MCP server: moot's debates as tools for coding agents (`moot mcp`). Needs the `mcp` extra."""

from moot.mcp.server import build_server

__all__ = ["build_server"]
