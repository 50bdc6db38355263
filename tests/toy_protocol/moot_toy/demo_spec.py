"""`moot demo vote`: three scripted judges split on a release, and one is convinced in round 2."""

from __future__ import annotations

from pathlib import Path

from moot.protocol import DemoSpec

QUESTION = "Should the release go out on Friday?"

DEMO = DemoSpec(
    folder=Path(__file__).resolve().parent / "demo",
    argv=("vote", QUESTION, "--judges", "judges.yaml"),
    gate="--require CONSENSUS",
)
