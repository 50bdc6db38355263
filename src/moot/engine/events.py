"""Progress events (defined in `moot.schemas.events`, re-exported where the engine's users look)."""

from moot.schemas.events import Event, EventSink, fan_out, ignore

__all__ = ["Event", "EventSink", "fan_out", "ignore"]
