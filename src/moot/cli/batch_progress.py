"""What `moot batch` and `moot bench` share while many debates run: progress on stderr per step (a rich bar on
a terminal; plain lines in a pipe or a CI log, where a live bar would print nothing until the end), and
SIGTERM treated as Ctrl-C, so that a run stopped either way continues when its command is run again."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from moot.batch import BatchProgress

T = TypeVar("T")


class ProgressDisplay(Protocol):
    """A bar or lines: told where each step stands, kept alive by `heartbeat` while it runs, then stopped."""

    def __call__(self, step: str, p: BatchProgress) -> None: ...

    async def heartbeat(self) -> None: ...

    def stop(self) -> None: ...


def bar_wanted(progress: bool | None, fmt: str) -> bool:
    """`--progress/--no-progress` as given, else on for text output and off for json."""
    return bool(progress) or (progress is None and fmt == "text")


def run_with_bar(
    start: Callable[[ProgressDisplay | None], Coroutine[Any, Any, T]],
    *,
    bar: ProgressDisplay | None,
    interrupted: Callable[[], Exception],
) -> T:
    """Run `start(bar)` until it ends or is stopped (Ctrl-C or SIGTERM: `interrupted()` is raised); the bar
    is stopped either way, so the terminal is left clean."""

    async def with_heartbeat() -> T:
        beat = asyncio.create_task(bar.heartbeat()) if bar is not None else None
        try:
            return await start(bar)
        finally:
            if beat is not None:
                beat.cancel()

    try:
        return _run_until_signal(with_heartbeat)
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
    vote@equal's samples): items ended of all, failures, debates running, spend, ETA. When stderr is not a
    terminal, `ProgressLines` prints the same figures as lines instead."""

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

    async def heartbeat(self) -> None:
        return None  # the live bar redraws itself

    def stop(self) -> None:
        if self.tasks:
            self.progress.stop()


def progress_display(title: str) -> ProgressDisplay:
    """A live bar on a terminal; plain lines in a pipe or a CI log (a live bar would print nothing there)."""
    return ProgressBar(title) if _live_terminal() else ProgressLines(title)


def _live_terminal() -> bool:
    try:
        tty = sys.stderr.isatty()
    except ValueError:  # closed
        return False
    return tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


class ProgressLines:
    """Progress as plain lines on stderr, for a pipe or a CI log: a line when a step starts, when items end
    (at most one a second, the last one always), and every `HEARTBEAT_S` while debates run with none ending
    (from `heartbeat`, a task beside the run, so that a long call is not silence)."""

    HEARTBEAT_S = 10.0
    MIN_GAP_S = 1.0

    def __init__(self, title: str) -> None:
        self.title = title
        self.ended: dict[str, int] = {}
        self.last_line = 0.0
        self.latest: tuple[str, BatchProgress, float] | None = None  # step, its progress, when it came

    def __call__(self, step: str, p: BatchProgress) -> None:
        ended, now = p.done + p.failed, time.monotonic()
        before = self.ended.get(step)
        self.ended[step] = ended
        self.latest = (step, p, now)
        if before is None:
            self._say(step, p, f"{ended} already ended" if ended else "started")
        elif ended != before and (ended == p.total or now - self.last_line >= self.MIN_GAP_S):
            self._say(step, p, "")

    async def heartbeat(self) -> None:
        """Every `HEARTBEAT_S` with no line while debates run, the last figures again, its clock moved on."""
        while True:
            await asyncio.sleep(self.HEARTBEAT_S / 4)
            now = time.monotonic()
            if self.latest is None or now - self.last_line < self.HEARTBEAT_S:
                continue
            step, p, at = self.latest
            if p.running:
                self._say(step, replace(p, elapsed=p.elapsed + now - at), "still running")

    def _say(self, step: str, p: BatchProgress, note: str) -> None:
        self.last_line = time.monotonic()
        title = self.title.replace("{task.description}", step)
        line = (
            f"{title}: {p.done + p.failed}/{p.total} ended, {p.failed} failed, {p.running} running, "
            f"{p.calls} calls, ${p.cost:.4f}, {p.elapsed:.0f}s"
        )
        sys.stderr.write(line + (f" ({note})" if note else "") + "\n")
        sys.stderr.flush()

    def stop(self) -> None:
        return None
