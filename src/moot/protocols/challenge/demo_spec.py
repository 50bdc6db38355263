"""`moot demo challenge`: a scripted proponent defends sharding the orders table against three scripted
challengers, accepting one objection and answering another in part."""

from __future__ import annotations

from pathlib import Path

from moot.engine.demo import DemoSpec

TOPIC = "Should the orders table be sharded, and by what key?"

DEMO = DemoSpec(
    folder=Path(__file__).resolve().parent / "demo",
    argv=("challenge", TOPIC, "--judges", "judges.yaml", "--context", "context.md"),
    gate="--require CONSENSUS",
)
