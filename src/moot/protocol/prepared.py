"""A debate whose inputs are validated and whose judges are built, not yet run: the one shape every
protocol's API produces, so that running, resuming and estimating are written once.

    prepare (per protocol)  ->  Prepared  ->  run_prepared       the debate, in the store
                                          ->  estimate_prepared  its calls and costs, nothing sent

It also runs one: a debate's life in the store (`run_debate`: created, run, finished or marked interrupted),
with the options every run takes (`RunOptions`).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from moot.access import current, real
from moot.engine.budget import TYPICAL_REPLY_TOKENS, CallCost, Scenario, stored_settings
from moot.engine.core import Engine, EngineOptions
from moot.engine.host import HostReplyRefused, HostWaiting
from moot.engine.panel_check import STORED_AUTHOR_KEY, announce, panel_report, temper, warning_lines
from moot.engine.prefix_share import prefix_shares
from moot.engine.pricing import Pricing
from moot.engine.runner import rehearse_plan, run_steps
from moot.engine.steps import ProtocolSteps
from moot.errors import DebateAborted, DebateCancelled, UsageError
from moot.judges.base import Seat
from moot.judges.factory import require_credentials, seat_judges
from moot.judges.providers import stored_key_lines
from moot.judges.readiness import merge_warnings, plan_warnings
from moot.panel_file import PanelFile
from moot.schemas.events import Event, fan_out
from moot.schemas.host import Waiting
from moot.schemas.panel import PanelReport
from moot.schemas.safe_text import lone_surrogate_at
from moot.secrets import STORED_REDACT_KEY, redact_text, screen_request
from moot.store.db import Store, StoreError
from moot.store.host import clear_requests, save_requests

R = TypeVar("R", bound=BaseModel)


@dataclass
class RunOptions(EngineOptions):
    """How to run a debate, whatever its protocol: where state goes, and the engine's own options (who
    hears progress, call policy, limits, prices, budget)."""

    store: Store | None = None
    debate_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # stored beside the request (the author model)


async def run_debate(
    protocol: str,
    request: BaseModel,
    title: str,
    seats: Sequence[Seat],
    body: Callable[[Engine], Awaitable[R]],
    options: RunOptions,
    *,
    resuming: bool = False,
) -> R:
    require_credentials(seat_judges(seats))  # before the debate exists: a missing key is bad input
    store = options.store or Store.open_default()
    debate_id = options.debate_id or new_debate_id()
    options.debate_id = debate_id  # so that a caller interrupted mid-debate can say what to resume
    if not resuming:
        # the budget and prices go beside the request, so that `moot resume` keeps the cap
        stored = {**storable(request), **stored_settings(options.budget, options.pricing), **options.extra}
        store.create_debate(debate_id, protocol, stored, title=title, started_in=started_in())
    else:
        store.set_status(debate_id, "running")
    engine = Engine.from_options(store, debate_id, options)
    try:
        result = await body(engine)
        # finished before the judges' clients close: a stop (SIGTERM, Ctrl-C) while they close must not
        # leave a debate whose result is known marked running
        store.set_status(debate_id, "finished", result=result.model_dump(mode="json"))
        clear_requests(store, debate_id)
    except HostWaiting as w:  # host replies are due: the debate waits for them, in the store
        save_requests(store, debate_id, w.requests)
        store.set_status(debate_id, "waiting")
        raise
    except HostReplyRefused as r:  # a host reply that cannot be read: its request stays pending
        save_requests(store, debate_id, r.pending)  # a good reply given beside it is stored, no longer pending
        store.set_status(debate_id, "waiting")
        raise
    except DebateCancelled:  # cancelled from outside while it ran: it stays cancelled
        raise
    except DebateAborted as e:
        store.set_status(debate_id, "failed", error=str(e))
        raise
    except (asyncio.CancelledError, KeyboardInterrupt, StoreError):
        # a store that cannot be written (a full disk, a lock held too long, an I/O error) stops the debate as an
        # interruption: resumable
        mark_interrupted(store, debate_id)
        raise
    except BaseException as e:
        store.set_status(debate_id, "failed", error=f"{type(e).__name__}: {e}")
        raise
    finally:
        for seat in seats:
            for judge in seat.judges:
                await judge.aclose()
    return result


def started_in() -> list[str]:
    """The folders a new debate is started in: a tool call's roots (`moot.access`), else the working folder."""
    folders = current()
    if folders is not None:
        return [str(r) for r in folders.roots]
    return [str(real(Path.cwd()))]


def mark_interrupted(store: Store, debate_id: str, tries: int = 3) -> None:
    """Say in the store that the debate stopped and how to continue it. The store may be what stopped it (a
    lock another process held too long): the mark is tried again briefly, and a debate it never reaches
    stays `running`, which `moot resume` continues just the same."""
    for attempt in range(tries):
        try:
            store.set_status(debate_id, "interrupted", error="interrupted; continue with: moot resume " + debate_id)
            return
        except StoreError:
            if attempt + 1 < tries:
                time.sleep(0.2 * (attempt + 1))


def new_debate_id() -> str:
    return str(uuid.uuid4())


def storable(request: BaseModel) -> dict[str, Any]:
    """A request as it may be written to the store: every literal API key removed."""
    data = request.model_dump(mode="json")

    def scrub(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: (None if k == "api_key" else scrub(v)) for k, v in node.items()}
        if isinstance(node, list):
            return [scrub(v) for v in node]
        return node

    return scrub(data)  # type: ignore[no-any-return]


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
    author_model: str | None = None  # the model that wrote the artifact (`--author-model`), for the panel check

    def panel_check(self) -> PanelReport:
        """The panel's seats, models, families and warnings (`moot.engine.panel_check`)."""
        seats = self.panel_seats if self.panel_seats is not None else self.seats
        return panel_report(seats, self.author_model)

    # a secret in the inputs is replaced by [REDACTED:<kind>] (else it refuses the debate); what was is listed
    redact_secrets: bool = False
    redactions: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Every protocol's inputs end here before anything is stored or sent: text that is not text (a lone
        surrogate, from an undecodable byte or an unpaired JSON escape) is bad input, not a crash later; so is
        a secret (`moot.secrets`), unless asked to redact it, which is done here, in the request itself."""
        where = lone_surrogate_at(self.request.model_dump())
        if where is not None:
            raise UsageError(
                f"{where} is not valid text: it holds an undecodable byte or an unpaired surrogate (U+D800-U+DFFF)"
            )
        hits = screen_request(self.request, redact=self.redact_secrets)
        if hits:
            records = [h.record() for h in hits]  # a diff shows a line twice (hunk, whole text): listed once
            self.redactions = [r for n, r in enumerate(records) if r not in records[:n]]
            self.title = redact_text(self.title)


# the most input (artifact, context, topic) a debate takes unless raised: every judge is sent it in every round
DEFAULT_MAX_INPUT_TOKENS = 1_000_000
CAP_HINT = "raise the cap with --max-input-tokens (max_input_tokens over MCP and from Python) or send less"


def input_cap(max_input_tokens: int | None) -> int:
    """The cap in effect: the one given (a positive whole number), else the default."""
    if max_input_tokens is None:
        return DEFAULT_MAX_INPUT_TOKENS
    if isinstance(max_input_tokens, bool) or not isinstance(max_input_tokens, int) or max_input_tokens < 1:
        raise UsageError(f"max_input_tokens must be a positive whole number (got {max_input_tokens!r})")
    return max_input_tokens


def check_input_cap(p: Prepared, max_input_tokens: int | None) -> None:
    """Refuse, before anything is stored or sent, a debate whose input is larger than the cap (one line)."""
    cap = input_cap(max_input_tokens)
    if p.input_tokens > cap:
        raise UsageError(
            f"the {p.input_name} is about {p.input_tokens:,} tokens, over the cap of {cap:,} tokens: {CAP_HINT}"
        )


def input_cap_warning(p: Prepared, max_input_tokens: int | None) -> str | None:
    """The dry run's word on the cap: over it (a run would be refused), or past 80% of it."""
    cap = input_cap(max_input_tokens)
    if p.input_tokens > cap:
        over = f"the {p.input_name} is about {p.input_tokens:,} tokens, over the cap of {cap:,}"
        return f"{over}: a run would be refused ({CAP_HINT})"
    if p.input_tokens > cap * 0.8:
        return (
            f"the {p.input_name} is about {p.input_tokens:,} tokens, {p.input_tokens / cap:.0%} of the cap of {cap:,}"
        )
    return None


async def run_prepared(p: Prepared, options: RunOptions, *, resuming: bool = False) -> Any:
    """Run (or resume) a prepared debate in the store, its file writers subscribed to its events: its
    result, or (a debate with host seats) the `Waiting` state where host replies are due."""
    if not resuming:
        preflight(p, options.pricing)
    store = options.store or Store.open_default()
    options.store = store
    report = p.panel_check()
    if p.author_model:  # kept beside the request, so that a resumed debate warns the same
        options.extra[STORED_AUTHOR_KEY] = p.author_model
    if p.redactions:  # the stored request is the redacted one: what was redacted is kept beside it
        options.extra[STORED_REDACTIONS_KEY] = p.redactions
    if p.redact_secrets:  # so that host replies given later are redacted too (`moot.api.host`)
        options.extra[STORED_REDACT_KEY] = True

    async def body(engine: Engine) -> Any:
        writer = p.files(store, engine.debate_id)
        if writer is not None:
            engine.emit = fan_out(engine.emit, writer)
        announce(report, engine.emit)
        result = temper(await run_steps(p.make(engine.debate_id), engine), report)
        if p.redactions and "redactions" in type(result).model_fields:
            result.redactions = p.redactions
        return writer.finish(result) if writer is not None else result

    try:
        return await run_debate(p.protocol, p.request, p.title[:200], p.seats, body, options, resuming=resuming)
    except HostWaiting as w:  # host replies are due: the waiting state, in the store and returned
        return Waiting(debate_id=str(options.debate_id), protocol=p.protocol, requests=w.requests)


STORED_REDACTIONS_KEY = "run_redactions"


def restore_redactions(p: Prepared, request: Mapping[str, Any]) -> Prepared:
    """A stored debate prepared again lists the redactions its first run made (its stored request holds the
    `[REDACTED:<kind>]` marks, which a screen finds nothing in), so its result lists them as the one-shot
    run's does."""
    stored = request.get(STORED_REDACTIONS_KEY)
    if not p.redactions and isinstance(stored, list):
        p.redactions = [dict(r) for r in stored if isinstance(r, Mapping)]
    return p


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


def estimate_prepared(p: Prepared, pricing: Pricing | None, max_input_tokens: int | None = None) -> dict[str, Any]:
    """The dry run as data (what `--dry-run --format json` prints): every call of the longest path,
    rendered from the protocol's own prompts and priced, and the cost table of the ways it can end."""
    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    calls = rehearse_plan(p.make("dry-run"), p.make("dry-run"), engine)
    seats = p.panel_seats if p.panel_seats is not None else p.seats
    extra = dict(p.plan_extra)
    # no key, SDK or agent CLI is needed to plan; every one a real run would miss is named
    warnings = merge_warnings(extra.pop("warnings", []), plan_warnings(seats))
    capped = input_cap_warning(p, max_input_tokens)
    warnings = [capped, *warnings] if capped else warnings
    report = p.panel_check()
    return {
        "dry_run": True,
        "protocol": p.protocol,
        "artifact_tokens": p.input_tokens,
        "input_name": p.input_name,
        "judges": [
            {
                "seat": s.id,
                "model": s.label,
                "runs_on": [f"{j.provider}/{j.model}" for j in s.judges],
                "sends": stored_key_lines(s.spec),  # which variable goes to which host
            }
            for s in seats
        ],
        "rounds_allowed": p.rounds,
        **extra,
        "warnings": warnings,
        "panel": report.model_dump(mode="json"),
        "panel_warnings": warning_lines(report),
        "calls": [asdict(c) for c in calls],
        "scenarios": [asdict(s) for s in p.scenarios(calls)],
        "prompt_cache": prefix_shares(calls),
        "assumptions": dict(ASSUMPTIONS),
    }
