"""Progress on stderr while a debate runs: rounds, answers and scores as they arrive, drops, retries."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from moot.schemas.events import Event
from moot.schemas.safe_text import safe_text


class ProgressPrinter:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()

    def _say(self, text: str) -> None:
        self.stream.write(f"[{time.monotonic() - self.t0:6.1f}s] {safe_text(text)}\n")
        self.stream.flush()

    def __call__(self, e: Event) -> None:
        d = e.data
        if e.kind == "round_started":
            phase = f" ({d['phase']})" if d.get("phase") else ""
            where = f"round {e.round}" if e.round else "final"  # round 0: the step after the last round
            if not e.round and d.get("phase") == "rubric":  # `--criteria auto`: the step before round 1
                where, phase = "rubric", ""
            self._say(f"{where}{phase}: asking {', '.join(d.get('judges', []))}")
        elif e.kind == "judge_answered":
            extra = " (after clarification)" if d.get("clarified") else ""
            score = d.get("score")
            what = f"score {score:g}" if isinstance(score, int | float) else str(d.get("summary", "answered"))
            self._say(f"  {e.seat}: {what}{extra}")
        elif e.kind == "judge_dropped":
            self._say(f"  {e.seat}: DROPPED ({d.get('reason')})")
        elif e.kind == "clarification":
            self._say(f"  {e.seat}: reply unusable, asking once more ({d.get('reason')})")
        elif e.kind == "retry":
            self._say(f"  {e.seat}: {d.get('error')}; retrying in {d.get('wait')}s")
        elif e.kind == "fallback":
            self._say(f"  {e.seat}: {d.get('from')} failed ({d.get('error')}); trying its fallback")
        elif e.kind == "round_finished":
            if d.get("consensus"):
                detail = d.get("summary") or f"range {d.get('range')}"
                self._say(f"round {e.round}: consensus ({detail})")
            else:
                reasons = "; ".join(d.get("reasons", [])) or "no consensus"
                self._say(f"round {e.round}: {reasons}")
        elif e.kind == "note":
            self._say(str(d.get("text", "")))
