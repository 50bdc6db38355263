"""The public Python API: every protocol's function with its sync twin (`evaluate` / `evaluate_sync`, ...),
taken from the registry (`moot.protocols`), plus what is shared: resume, estimate, the gate rule, and the
pieces for building panels in code (`Panelist`, ...). The CLI and the MCP server are thin adapters over the
same specs.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from moot.api.gate import gate_failure as gate_failure
from moot.api.host import cancel_debate as cancel_debate
from moot.api.host import submit_replies as submit_replies
from moot.api.host import submit_replies_sync as submit_replies_sync
from moot.api.resume import resume as resume
from moot.api.resume import resume_sync as resume_sync
from moot.protocol.panel import Panelist as Panelist
from moot.protocol.panel import apply_max_cost as apply_max_cost
from moot.protocol.panel import make_seats as make_seats
from moot.protocol.panel import options_from_panel as options_from_panel
from moot.protocol.prepared import Prepared as Prepared
from moot.protocol.prepared import estimate_prepared as estimate_prepared
from moot.protocol.prepared import run_prepared as run_prepared
from moot.protocol.spec import ProtocolSpec as ProtocolSpec
from moot.protocols import spec_for as spec_for
from moot.protocols import specs as specs

if TYPE_CHECKING:  # each protocol's exports, its generated functions typed by a stub (`moot.api.stubs`)
    from moot.protocols.exports import *  # noqa: F403


async def estimate(protocol: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """What a debate would cost, sending nothing: `estimate("evaluate", "src/", task=...)` takes the same
    arguments as the protocol's own function and returns what `--dry-run --format json` prints: every planned
    call with its input tokens and typical and worst-case cost, and the cost table. As the dry run, it
    checks no cap: an input near or over `max_input_tokens` is a warning in the plan."""
    prepared, options = await spec_for(protocol).prepare(*args, **kwargs, planning=True)
    return estimate_prepared(prepared, options.pricing, kwargs.get("max_input_tokens"))


def estimate_sync(protocol: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """`estimate`, for code that is not async."""
    return asyncio.run(estimate(protocol, *args, **kwargs))


_SHARED = [
    "Panelist",
    "Prepared",
    "ProtocolSpec",
    "apply_max_cost",
    "cancel_debate",
    "estimate",
    "estimate_prepared",
    "estimate_sync",
    "gate_failure",
    "make_seats",
    "options_from_panel",
    "resume",
    "resume_sync",
    "run_prepared",
    "spec_for",
    "specs",
    "submit_replies",
    "submit_replies_sync",
]


def _exports() -> dict[str, Any]:
    return {name: value for spec in specs() for name, value in spec.exports.items()}


def __getattr__(name: str) -> Any:
    """A protocol's public names (`evaluate`, `DecisionResult`, `record_choice`, ...), from its SPEC."""
    if name == "__all__":
        return sorted([*_SHARED, *_exports()])
    exported = _exports()
    if name in exported:
        return exported[name]
    raise AttributeError(f"module 'moot.api' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_exports()])
