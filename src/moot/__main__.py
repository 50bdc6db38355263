"""`python -m moot` runs the CLI."""

from moot.cli.app import run

run()
