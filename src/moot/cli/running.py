"""Running a debate from a command: asyncio at the top, Ctrl-C turned into a resumable `Interrupted`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from moot.errors import Interrupted
from moot.runs import RunOptions

T = TypeVar("T")


def run_cli(start: Callable[[], Coroutine[Any, Any, T]], options: RunOptions) -> T:
    """Run `start()` to completion. On Ctrl-C the debate has already been marked interrupted in the
    store by `run_debate`; the user is told how to continue it."""
    try:
        return asyncio.run(start())
    except KeyboardInterrupt:
        raise Interrupted(options.debate_id) from None
