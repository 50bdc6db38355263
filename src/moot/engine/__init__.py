"""The one place that awaits judges: concurrency, timeouts, retries, rate limits, fallbacks, accounting,
the store, and replay of finished calls on resume. Protocols describe rounds; the engine runs calls."""

from moot.engine.ask import Answer, ask
from moot.engine.calls import CallOutcome, RetryPolicy
from moot.engine.core import Engine
from moot.schemas.events import Event, EventSink

__all__ = ["Answer", "CallOutcome", "Engine", "Event", "EventSink", "RetryPolicy", "ask"]
