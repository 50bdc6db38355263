"""`moot demo decide`: scripted Risk, Value and Effort judges split on a question in round 1, and one of
them documents its change of mind in round 2."""

from __future__ import annotations

from pathlib import Path

from moot.engine.demo import DemoSpec

DEMO = DemoSpec(
    folder=Path(__file__).resolve().parent / "demo",
    argv=("decide", "--debate-context", "question.yaml", "--judges", "judges.yaml"),
    gate="--require RECOMMENDED",
    run_argv=("--no-input",),  # a demo never stops to ask the person watching it
)
