"""The bundle's entry point: moot's MCP server over stdio, with the keys the user entered in the bundle's
settings. Each arrives as MOOT_PLUGIN_<VAR>; one left empty must not hide the same variable from the user's
environment, so only a non-empty setting is exported (the rule the Claude Code plugin's launcher follows)."""

import os
import sys

KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY", "OPENROUTER_API_KEY")

for var in KEYS:
    value = os.environ.pop(f"MOOT_PLUGIN_{var}", "")
    if value and not value.startswith("${"):  # a host that did not substitute a setting passes it literally
        os.environ[var] = value

from moot.cli.app import run  # noqa: E402  (after the keys are in place)

sys.argv = ["moot", "mcp", *sys.argv[1:]]
run()
