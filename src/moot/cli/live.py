"""Progress while a debate runs: a live view of the round under way at a terminal, plain lines elsewhere.

Which one, and whether any (`progress_sink`): progress always goes to stderr, so stdout carries only the
result. By default it is shown for the text formats, and for every format when stderr is a terminal;
`--progress` and `--quiet` (`--no-progress`) force it either way. A live view needs a terminal that can
move its cursor, so pipes, CI logs and TERM=dumb get `ProgressPrinter`'s lines, which tests read.

The live view is drawn from the engine's events: each judge's state in the current round (waiting,
answered with its score or recommendation, clarifying, dropped), spend so far (from `call_done`) and the
time elapsed. A finished round leaves one line behind, so the scrollback tells the story of the debate.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from moot.schemas.events import Event, EventSink
from moot.schemas.safe_text import safe_text

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live

READABLE_FORMATS = ("text", "markdown")  # formats a person reads, so progress beside them is on by default
PROGRESS_HELP = "Progress on stderr (default: on for text and markdown, and for any format when stderr is a terminal)."
MARKS = {"ok": "[green]✓[/]", "dropped": "[red]✗[/]", "clarifying": "[yellow]?[/]"}


@dataclass
class _Spend:
    calls: int = 0
    replayed: int = 0
    tokens: int = 0
    cost: float = 0.0
    unpriced: bool = False

    def add(self, data: dict[str, Any]) -> None:
        self.calls += 1
        self.replayed += bool(data.get("replayed"))
        self.tokens += int(data.get("input_tokens") or 0) + int(data.get("output_tokens") or 0)
        cost = data.get("cost_usd")
        if cost is None and data.get("ok"):
            self.unpriced = True
        self.cost += float(cost or 0.0)

    def line(self, elapsed: float) -> str:
        replayed = f" ({self.replayed} replayed)" if self.replayed else ""
        usd = f"${self.cost:.4f}" + ("+?" if self.unpriced else "")
        return f"{self.calls} calls{replayed} · {self.tokens:,} tokens · {usd} · {elapsed:.1f} s elapsed"


@dataclass
class _Round:
    title: str
    judges: dict[str, tuple[str, str]] = field(default_factory=dict)  # seat -> (state, what)


def _escape(text: object) -> str:
    """Text from a judge, a server or a file, for a line of rich markup: inert, and no markup of its own."""
    from rich.markup import escape

    return escape(safe_text(text))


def _answer(data: dict[str, Any]) -> str:
    score = data.get("score")
    what = f"{score:g}" if isinstance(score, int | float) else str(data.get("summary", "answered"))
    return what + (" (after clarification)" if data.get("clarified") else "")


class LiveProgress:
    """An event sink that redraws the round under way in place on a terminal (rich's `Live`)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.t0 = time.monotonic()
        self.spend = _Spend()
        self.round: _Round | None = None
        self.live: Live | None = None
        self.lock = threading.Lock()  # rich redraws from its own thread
        self.pending: list[str] = []  # lines to print above the live view once the lock is released

    def __call__(self, e: Event) -> None:
        with self.lock:
            handler = getattr(self, f"_on_{e.kind}", None)
            if handler is not None:
                handler(e)
            lines, self.pending = self.pending, []
        # printed outside the lock: the redrawing thread holds rich's lock while it asks for the view. rich
        # redraws the live region below each printed line from the frame it last drew, which may predate
        # this event (a judge still waiting that has answered): redraw it from the state now, first
        if lines and self.live is not None:
            self.live.refresh()
        for line in lines:
            self.console.print(line, highlight=False)
        if self.live is None and self.round is not None:
            self._start()

    def _start(self) -> None:
        from rich.live import Live

        self.live = Live(console=self.console, get_renderable=self._view, transient=True, refresh_per_second=8)
        self.live.start()

    def close(self) -> None:
        """Stop redrawing (the live region goes away; the lines of finished rounds stay)."""
        if self.live is not None:
            self.live.stop()
            self.live = None
        if self.spend.calls:
            self.console.print(f"[dim]{self.spend.line(time.monotonic() - self.t0)}[/]", highlight=False)

    def _say(self, markup: str) -> None:
        self.pending.append(markup)

    # events

    def _on_round_started(self, e: Event) -> None:
        if self.round is not None:  # a phase that ends without a round_finished (challenge) stays on screen
            self._say(self._summary(self.round))
        phase = f" ({e.data['phase']})" if e.data.get("phase") else ""
        where = f"round {e.round}" if e.round else "final"  # round 0: the step after the last round
        self.round = _Round(safe_text(f"{where}{phase}"))
        self.round.judges = {safe_text(j): ("waiting", "") for j in e.data.get("judges", [])}

    def _set(self, seat: str, state: str, what: str) -> None:
        if self.round is not None:  # drawn as plain rich Text by `_view`: inert, markup is not read there
            self.round.judges[safe_text(seat)] = (state, safe_text(what))

    def _on_judge_answered(self, e: Event) -> None:
        self._set(e.seat, "ok", _answer(e.data))

    def _on_judge_dropped(self, e: Event) -> None:
        self._set(e.seat, "dropped", f"dropped: {e.data.get('reason')}")

    def _on_clarification(self, e: Event) -> None:
        self._set(e.seat, "clarifying", f"reply unusable, asked once more ({e.data.get('reason')})")

    def _on_retry(self, e: Event) -> None:
        self._say(f"[yellow]  {_escape(e.seat)}: {_escape(e.data.get('error'))}; retrying in {e.data.get('wait')}s[/]")

    def _on_fallback(self, e: Event) -> None:
        d = e.data
        failed = f"{_escape(d.get('from'))} failed ({_escape(d.get('error'))})"
        self._say(f"[yellow]  {_escape(e.seat)}: {failed}; trying its fallback[/]")

    def _on_call_done(self, e: Event) -> None:
        self.spend.add(e.data)

    def _on_round_finished(self, e: Event) -> None:
        d = e.data
        if d.get("consensus"):
            tail = "[green]consensus[/] (" + _escape(d.get("summary") or f"range {d.get('range')}") + ")"
        else:
            tail = _escape("; ".join(d.get("reasons", [])) or "no consensus")
        if self.round is not None:
            self._say(self._summary(self.round, tail))
        self.round = None

    def _on_note(self, e: Event) -> None:
        self._say(f"  {_escape(e.data.get('text', ''))}")

    def _on_budget_stop(self, e: Event) -> None:
        self._say(f"[yellow]{_escape(e.data.get('reason', ''))}[/]")

    # drawing

    def _summary(self, r: _Round, tail: str = "") -> str:
        parts = [
            f"{MARKS.get(state, '·')} {_escape(seat)} {_escape(what)}".rstrip()
            for seat, (state, what) in r.judges.items()
        ]
        line = f"[bold]{_escape(r.title)}[/]: " + "  ".join(parts)
        return line + (f" — {tail}" if tail else "")

    def _view(self) -> RenderableType:
        from rich.console import Group
        from rich.spinner import Spinner
        from rich.table import Table
        from rich.text import Text

        with self.lock:
            r = self.round
            judges = dict(r.judges) if r is not None else {}
            title = r.title if r is not None else "between rounds"
            spend = self.spend.line(time.monotonic() - self.t0)
        grid = Table.grid(padding=(0, 1))
        for seat, (state, what) in judges.items():
            mark: RenderableType = (
                Spinner("dots", style="cyan") if state == "waiting" else Text.from_markup(MARKS[state])
            )
            grid.add_row(
                mark, Text(seat, style="bold"), Text(what or "waiting", style="dim" if state == "waiting" else "")
            )
        return Group(Text(title, style="bold"), grid, Text(spend, style="dim"))


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # closed
        return False


def progress_sink(flag: bool | None, fmt: str, *, stream: TextIO | None = None) -> EventSink | None:
    """The progress a command should show on stderr, or None: see the module's docstring for the rule."""
    stream = stream or sys.stderr
    tty = _is_terminal(stream)
    if not (flag if flag is not None else (fmt in READABLE_FORMATS or tty)):
        return None
    if tty and os.environ.get("TERM", "").lower() not in ("dumb", "unknown"):
        from rich.console import Console

        return LiveProgress(Console(file=stream))
    from moot.cli.progress import ProgressPrinter

    return ProgressPrinter(stream)


def announce(sink: EventSink | None, text: str) -> None:
    """A line of progress that no event carries (what a command is about to do)."""
    if isinstance(sink, LiveProgress):
        sink.console.print(safe_text(text), highlight=False, markup=False)
    elif sink is not None:
        from moot.cli.progress import ProgressPrinter

        if isinstance(sink, ProgressPrinter):
            sink._say(text)


def stop(sink: EventSink | None) -> None:
    """End a live view before anything else is printed (the result, a question)."""
    if isinstance(sink, LiveProgress):
        sink.close()


@contextmanager
def showing(sink: EventSink | None) -> Iterator[EventSink | None]:
    """`with showing(sink):` around a debate: the live view ends however the debate does."""
    try:
        yield sink
    finally:
        stop(sink)
