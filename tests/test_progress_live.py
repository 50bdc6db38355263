"""Progress on stderr: when it is shown (one rule for every format), and the live view at a terminal."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from moot.cli.app import main
from moot.cli.live import LiveProgress, progress_sink
from moot.cli.progress import ProgressPrinter
from moot.schemas.events import Event

from .scripted_panels import converging_panel, evaluate_args

ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class TtyStream(io.StringIO):
    """What a terminal looks like to the code deciding how to show progress."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("flag", "fmt", "tty", "term", "expected"),
    [
        (None, "text", False, "xterm", ProgressPrinter),  # piped text: lines, as tests and CI logs read them
        (None, "markdown", False, "xterm", ProgressPrinter),
        (None, "json", False, "xterm", type(None)),  # piped JSON: stderr stays empty
        (None, "yaml", False, "xterm", type(None)),
        (None, "github", False, "xterm", type(None)),
        (None, "json", True, "xterm", LiveProgress),  # at a terminal: every format
        (None, "github", True, "xterm", LiveProgress),
        (None, "text", True, "dumb", ProgressPrinter),  # a terminal that cannot redraw gets lines
        (True, "json", False, "xterm", ProgressPrinter),  # --progress
        (False, "text", True, "xterm", type(None)),  # --quiet / --no-progress
    ],
)
def test_one_rule_for_progress_in_every_format(
    flag: bool | None, fmt: str, tty: bool, term: str, expected: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", term)
    stream = TtyStream() if tty else io.StringIO()
    assert type(progress_sink(flag, fmt, stream=stream)) is expected


def test_github_format_shows_progress_at_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "dumb")  # a terminal, but plain lines (no redrawing) to read back
    err = TtyStream()
    monkeypatch.setattr("sys.stderr", err)
    assert main(evaluate_args(tmp_path, converging_panel(tmp_path), "--format", "github")) == 0
    assert capsys.readouterr().out.startswith("## ")
    assert "round 1: asking judge-1, judge-2, judge-3" in err.getvalue()


def test_json_with_progress_keeps_stdout_one_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--format", "json", "--progress"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["spend"]["calls"] == 10
    assert "round 3: asking judge-1, judge-2, judge-3" in captured.err


def test_no_progress_is_quiet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "Verdict: CONDITIONAL" in captured.out


def test_demo_at_a_terminal_draws_rounds_live(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("COLUMNS", "200")
    err = TtyStream()
    monkeypatch.setattr("sys.stderr", err)
    assert main(["demo", "--reports-dir", str(tmp_path / "r")]) == 0
    shown = ESCAPES.sub("", err.getvalue())
    assert "moot demo: evaluating src/api/users.ts with 3 judges" in shown
    assert "round 1: ✓ judge-1 3.6  ✓ judge-2 4.3  ✓ judge-3 2.8 — overall scores differ by 1.5" in shown
    assert "round 3: ✓ judge-1 3.5  ✓ judge-2 3.8  ✓ judge-3 2.9" in shown
    # spend from the engine's call_done events (the exact token count is pinned by the golden demo output)
    assert re.search(r"10 calls · \d{1,3},\d{3} tokens · \$0\.0000", shown)
    assert "[   0.0s]" not in shown  # not the line printer
    for r in (1, 2, 3):  # once a round's summary is printed, that round's frame is never drawn again
        assert f"\nround {r}\n" not in shown[shown.index(f"round {r}: ") :], r
    assert "Verdict: CONDITIONAL" in capsys.readouterr().out


def live_frame(events: list[Event]) -> str:
    console = Console(file=io.StringIO(), force_terminal=True, width=100, no_color=True)
    view = LiveProgress(console)
    view.live = object()  # type: ignore[assignment]  # drawn by hand below, not by a thread
    for e in events:
        view(e)
    with console.capture() as frame:
        console.print(view._view())
    return ESCAPES.sub("", frame.get())


def test_live_view_shows_each_judge_spend_and_elapsed() -> None:
    frame = live_frame(
        [
            Event("round_started", 2, data={"judges": ["judge-1", "judge-2", "judge-3", "judge-4"]}),
            Event("judge_answered", 2, "judge-1", {"score": 3.5, "clarified": False}),
            Event("clarification", 2, "judge-2", {"reason": "no overall_score"}),
            Event("judge_dropped", 2, "judge-4", {"reason": "timeout: no reply within 120s"}),
            Event("call_done", 2, "judge-1", {"input_tokens": 1000, "output_tokens": 200, "cost_usd": 0.01}),
            Event("call_done", 2, "judge-4", {"input_tokens": 0, "output_tokens": 0, "cost_usd": None, "ok": False}),
        ]
    )
    assert "round 2" in frame
    assert "✓ judge-1 3.5" in frame
    assert "? judge-2 reply unusable, asked once more (no overall_score)" in frame
    assert "judge-3 waiting" in frame
    assert "✗ judge-4 dropped: timeout: no reply within 120s" in frame
    assert re.search(r"2 calls · 1,200 tokens · \$0\.0100 · \d+\.\d s elapsed", frame)


@pytest.mark.parametrize("command", ["evaluate", "decide", "challenge", "demo", "resume"])
def test_help_states_the_rule_the_code_follows(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    main([command, "--help"])
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "--no-progress" in shown and "--quiet" in shown
    assert "default: on for text and markdown, and for any format when stderr is a terminal" in shown


def test_after_a_rounds_summary_the_live_view_never_redraws_its_stale_last_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The round's last answers and its end come between two of rich's redraws: the summary line printed
    above the live region must not bring back the last frame drawn, in which a judge that has answered
    still waits (rich redraws the region under every line printed above it, from the frame it last drew)."""
    monkeypatch.setenv("TERM", "xterm-256color")
    err = TtyStream()
    view = LiveProgress(Console(file=err, force_terminal=True, width=120, no_color=True))
    judges = ["judge-1", "judge-2", "judge-3"]
    view(Event("round_started", 1, data={"judges": judges}))  # the live view starts, drawn: all three waiting
    for n, seat in enumerate(judges):
        view(Event("judge_answered", 1, seat, {"score": 3.0 + n, "clarified": False}))
    view(Event("round_finished", 1, data={"consensus": False, "reasons": ["overall scores differ by 2"]}))
    view.close()
    shown = ESCAPES.sub("", err.getvalue())
    summary = "round 1: ✓ judge-1 3  ✓ judge-2 4  ✓ judge-3 5 — overall scores differ by 2"
    assert summary in shown
    assert "waiting" not in shown.split(summary, 1)[1], shown.split(summary, 1)[1]


def test_demo_in_a_pseudo_terminal_never_draws_a_finished_round_again(tmp_path: Path) -> None:
    """`moot demo` with stderr on a real pseudo-terminal (so it chooses the live view itself): after each
    round's summary line, that round's frame (a judge waiting that has answered) is not drawn again."""
    import os
    import pty
    import subprocess
    import sys

    master, child = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "200", "MOOT_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "demo", "--reports-dir", str(tmp_path / "r")],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=child,
        cwd=tmp_path,
        env=env,
    )
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    assert proc.stdout is not None and "Verdict: CONDITIONAL" in proc.stdout.read().decode()
    shown = ESCAPES.sub("", b"".join(chunks).decode(errors="replace")).replace("\r\n", "\n")
    for r in (1, 2, 3):
        assert f"round {r}: " in shown, shown[-2000:]
        assert f"\nround {r}\n" not in shown[shown.index(f"round {r}: ") :], r
