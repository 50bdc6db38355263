"""What `moot view` and `moot mcp` share: a server runs until it is stopped, so Ctrl-C or SIGTERM is its
normal end (one calm line, exit 0), not an interruption to resume (exit 130)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from moot.cli.app import stopped_inside


def until_stopped(name: str, serve: Callable[[], None]) -> None:
    """Run `serve()`; a stop (KeyboardInterrupt, which SIGTERM is turned into, even when Python 3.11 wraps
    it in a RuntimeError) ends it with `NAME: stopped` on stderr and returns, so the command exits 0."""
    try:
        serve()
    except KeyboardInterrupt:
        pass
    except Exception as e:
        if not stopped_inside(e):
            raise
    sys.stderr.write(f"{name}: stopped\n")
    sys.stderr.flush()
