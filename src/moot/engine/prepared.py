"""A debate whose inputs are validated and whose judges are built, not yet run: the one shape every
protocol's API produces, so that running, resuming and estimating are written once.

    prepare (per protocol)  ->  Prepared  ->  run_prepared       the debate, in the store
                                          ->  estimate_prepared  its calls and costs, nothing sent
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel

from moot.engine.budget import TYPICAL_REPLY_TOKENS, CallCost, Scenario
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.engine.runner import rehearse_plan, run_steps
from moot.engine.runs import RunOptions, run_debate
from moot.engine.steps import ProtocolSteps
from moot.errors import UsageError
from moot.judges.base import Seat
from moot.judges.readiness import merge_warnings, plan_warnings
from moot.panel_file import PanelFile
from moot.schemas.events import Event, fan_out
from moot.schemas.safe_text import lone_surrogate_at
from moot.store.db import Store


class FileWriter(Protocol):
    """Files for people, written from the runner's events as the debate goes (a subscriber)."""

    def __call__(self, event: Event) -> None: ...

    def finish(self, result: Any) -> Any:
        """Write what needs the whole result, and say in the result which files were written."""
        ...


@dataclass
class Prepared:
    protocol: str
    request: BaseModel
    title: str
    seats: list[Seat]  # every seat that may be called (a moderator included)
    panel: PanelFile | None
    rounds: int  # the most rounds, for progress totals
    make: Callable[[str], ProtocolSteps[Any]]  # a fresh protocol for a debate id
    scenarios: Callable[[Sequence[CallCost]], list[Scenario]]
    files: Callable[[Store, str], FileWriter | None] = lambda _store, _id: None
    input_tokens: int = 0
    input_name: str = "artifact"
    plan_extra: dict[str, Any] = field(default_factory=dict)
    panel_seats: list[Seat] | None = None  # the judges a dry run lists (default: every seat)

    def __post_init__(self) -> None:
        """Every protocol's inputs end here before anything is stored or sent: text that is not text (a lone
        surrogate, from an undecodable byte or an unpaired JSON escape) is bad input, not a crash later."""
        where = lone_surrogate_at(self.request.model_dump())
        if where is not None:
            raise UsageError(
                f"{where} is not valid text: it holds an undecodable byte or an unpaired surrogate (U+D800-U+DFFF)"
            )


async def run_prepared(p: Prepared, options: RunOptions, *, resuming: bool = False) -> Any:
    """Run (or resume) a prepared debate in the store, its file writers subscribed to its events."""
    if not resuming:
        preflight(p, options.pricing)
    store = options.store or Store.open_default()
    options.store = store

    async def body(engine: Engine) -> Any:
        writer = p.files(store, engine.debate_id)
        if writer is not None:
            engine.emit = fan_out(engine.emit, writer)
        result = await run_steps(p.make(engine.debate_id), engine)
        return writer.finish(result) if writer is not None else result

    return await run_debate(p.protocol, p.request, p.title[:200], p.seats, body, options, resuming=resuming)


def preflight(p: Prepared, pricing: Pricing | None) -> None:
    """Before the debate exists: every step's prompts, as the dry run estimates them, fit each judge's context
    window, and each judge's output bound holds its replies' schemas (UsageError, exit 2, when not)."""
    rehearse_plan(p.make("preflight"), p.make("preflight"), Engine(Store(":memory:"), "preflight", pricing=pricing))


ASSUMPTIONS = {
    "tokens": "characters / 4 of the rendered prompts",
    "typical_reply_tokens": TYPICAL_REPLY_TOKENS,
    "worst_case": "every reply at its output bound (max_tokens) plus one clarification each; "
    "the dearest model of each seat (fallbacks included); no prompt caching",
}


def estimate_prepared(p: Prepared, pricing: Pricing | None) -> dict[str, Any]:
    """The dry run as data (what `--dry-run --format json` prints): every call of the longest path,
    rendered from the protocol's own prompts and priced, and the cost table of the ways it can end."""
    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    calls = rehearse_plan(p.make("dry-run"), p.make("dry-run"), engine)
    seats = p.panel_seats if p.panel_seats is not None else p.seats
    extra = dict(p.plan_extra)
    # no key, SDK or agent CLI is needed to plan; every one a real run would miss is named
    warnings = merge_warnings(extra.pop("warnings", []), plan_warnings(seats))
    return {
        "dry_run": True,
        "protocol": p.protocol,
        "artifact_tokens": p.input_tokens,
        "input_name": p.input_name,
        "judges": [
            {"seat": s.id, "model": s.label, "runs_on": [f"{j.provider}/{j.model}" for j in s.judges]} for s in seats
        ],
        "rounds_allowed": p.rounds,
        **extra,
        "warnings": warnings,
        "calls": [asdict(c) for c in calls],
        "scenarios": [asdict(s) for s in p.scenarios(calls)],
        "assumptions": dict(ASSUMPTIONS),
    }
