"""What `moot batch` and `moot bench` share while many debates run: a rich progress bar on stderr per step,
and SIGTERM treated as Ctrl-C, so that a run stopped either way continues when its command is run again."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from moot.batch import BatchProgress

T = TypeVar("T")


def bar_wanted(progress: bool | None, fmt: str) -> bool:
    """`--progress/--no-progress` as given, else on for text output and off for json."""
    return bool(progress) or (progress is None and fmt == "text")


def run_with_bar(
    start: Callable[[ProgressBar | None], Coroutine[Any, Any, T]],
    *,
    bar: ProgressBar | None,
    interrupted: Callable[[], Exception],
) -> T:
    """Run `start(bar)` until it ends or is stopped (Ctrl-C or SIGTERM: `interrupted()` is raised); the bar
    is stopped either way, so the terminal is left clean."""
    try:
        return _run_until_signal(lambda: start(bar))
    except (KeyboardInterrupt, asyncio.CancelledError):
        raise interrupted() from None
    finally:
        if bar is not None:
            bar.stop()


def _run_until_signal(start: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run `start()`; SIGTERM cancels it as Ctrl-C does."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None
        try:
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
        except NotImplementedError:  # Windows: Ctrl-C only
            return await start()
        try:
            return await start()
        finally:
            loop.remove_signal_handler(signal.SIGTERM)

    previous = signal.getsignal(signal.SIGTERM)
    try:
        return asyncio.run(main())
    finally:  # asyncio leaves SIGTERM at its default (death by -15): the command's handler again
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class ProgressBar:
    """A rich progress bar on stderr, one line per step (a batch has one; a bench has the debates, then
    vote@equal's samples): items ended of all, failures, debates running, spend, ETA."""

    def __init__(self, title: str) -> None:
        """`title` is a rich column template, such as "batch" or "bench {task.description}"."""
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(
            TextColumn(title),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[failed]} failed · {task.fields[running]} running · {task.fields[spend]}"),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
        )
        self.tasks: dict[str, Any] = {}

    def __call__(self, step: str, p: BatchProgress) -> None:
        fields: dict[str, Any] = {"failed": p.failed, "running": p.running, "spend": f"{p.calls} calls · ${p.cost:.4f}"}
        if step not in self.tasks:  # items done by an earlier run count from the start, not as speed
            if not self.tasks:
                self.progress.start()
            self.tasks[step] = self.progress.add_task(step, total=p.total, completed=p.done + p.failed, **fields)
            return
        self.progress.update(self.tasks[step], completed=p.done + p.failed, **fields)

    def stop(self) -> None:
        if self.tasks:
            self.progress.stop()
