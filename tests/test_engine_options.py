"""A debate's `RunOptions` extend the engine's own options: whatever a caller sets there is what the engine
runs with, and an option added to the engine is one the run options carry."""

from __future__ import annotations

import inspect
import time
from dataclasses import fields

from moot.engine import Engine, Event, RetryPolicy
from moot.engine.budget import Budget
from moot.engine.core import EngineOptions
from moot.engine.limits import Limits
from moot.engine.pricing import Pricing
from moot.protocol.prepared import RunOptions
from moot.store.db import Store


def test_the_engine_runs_with_every_option_a_debate_was_given() -> None:
    heard: list[Event] = []
    deadline = time.monotonic() + 60
    options = RunOptions(
        on_event=heard.append,
        policy=RetryPolicy(max_retries=7),
        limits=Limits(),
        pricing=Pricing(),
        deadline=deadline,
        budget=Budget(max_cost_usd=0.5),
    )
    engine = Engine.from_options(Store(":memory:"), "d1", options)
    assert engine.policy.max_retries == 7
    assert engine.limits is options.limits and engine.pricing is options.pricing
    assert engine.budget.max_cost_usd == 0.5 and engine.deadline == deadline
    engine.emit(Event("round_started", 1))
    assert [e.kind for e in heard] == ["round_started"]


def test_engine_options_are_exactly_the_engines_keywords() -> None:
    keywords = {name for name, p in inspect.signature(Engine.__init__).parameters.items() if p.kind is p.KEYWORD_ONLY}
    assert {f.name for f in fields(EngineOptions)} == keywords


def test_unset_options_leave_the_engines_defaults() -> None:
    engine = Engine.from_options(Store(":memory:"), "d1", RunOptions())
    assert engine.policy == RetryPolicy() and engine.budget.max_cost_usd is None and engine.deadline is None
