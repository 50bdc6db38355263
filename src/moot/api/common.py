"""Pieces every protocol's API shares: panels of seats, run options from a judges file, resume."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from moot.errors import UsageError
from moot.inputs import validation_message
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_seat
from moot.panel_file import PanelFile, load_panel_file
from moot.protocols.evaluate import STANCE_PROMPTS
from moot.runs import RunOptions
from moot.schemas.config import JudgeSpec
from moot.store.db import Store


@dataclass
class Panelist:
    """A judge built in code (a `FunctionJudge`, a `ScriptedJudge`, your own) with its seat's stance."""

    judge: Judge
    stance: str = "neutral"
    stance_prompt: str | None = None
    name: str | None = None
    timeout: float = 120.0


JudgeLike = JudgeSpec | dict[str, Any] | Panelist | str


def _spec(entry: JudgeSpec | dict[str, Any] | str, where: str) -> JudgeSpec:
    if isinstance(entry, JudgeSpec):
        return entry
    try:
        return JudgeSpec.model_validate({"model": entry} if isinstance(entry, str) else entry)
    except ValidationError as e:
        raise UsageError(validation_message(e, where)) from None


def make_seats(
    entries: Sequence[JudgeLike],
    *,
    prefix: str = "judge",
    default_timeout: float = 120.0,
    base_dir: Path | None = None,
    stance_prompts: dict[str, str] | None = None,
) -> tuple[list[Seat], list[JudgeSpec]]:
    """Seats for a panel, numbered from 1; plus the storable specs (code-built judges have none)."""
    prompts = stance_prompts or STANCE_PROMPTS
    seats: list[Seat] = []
    specs: list[JudgeSpec] = []
    for n, entry in enumerate(entries, 1):
        seat_id = f"{prefix}-{n}"
        if isinstance(entry, Panelist):
            seats.append(
                Seat(
                    id=seat_id,
                    number=n,
                    label=entry.name or entry.judge.model,
                    stance=entry.stance,
                    stance_prompt=entry.stance_prompt or prompts.get(entry.stance, ""),
                    judges=[entry.judge],
                    timeout=entry.timeout,
                )
            )
            specs.append(JudgeSpec(model=entry.judge.model, name=entry.name, stance=entry.stance))
            continue
        spec = _spec(entry, f"judge {n}")
        seats.append(
            build_seat(
                spec,
                seat_id=seat_id,
                number=n,
                default_stance_prompt=prompts.get(spec.stance, f"Evaluate from the '{spec.stance}' stance."),
                default_timeout=default_timeout,
                base_dir=base_dir,
            )
        )
        specs.append(spec)
    return seats, specs


def options_from_panel(panel: PanelFile | None, **kwargs: Any) -> RunOptions:
    """Run options with the judges file's `retry:`, `limits:`, `pricing:` and `budget:` settings applied."""
    from moot.engine import settings

    options = RunOptions(**kwargs)
    if panel is None:
        return options
    where = f"judges file {panel.path}"
    options.policy = settings.retry_policy(panel.retry, f"{where}: retry") or options.policy
    options.limits = settings.limits(panel.limits, f"{where}: limits") or options.limits
    options.pricing = settings.pricing(panel.pricing, f"{where}: pricing") or options.pricing
    options.budget = settings.budget(panel.budget, f"{where}: budget") or options.budget
    return options


# resume, over every protocol: each protocol's API module registers how to rebuild its debate

Resumer = Callable[[dict[str, Any], str, RunOptions, PanelFile | None], Awaitable[BaseModel]]
RESUMERS: dict[str, Resumer] = {}


async def resume(
    debate_id: str,
    *,
    judges: str | Path | None = None,
    store: Store | None = None,
    on_event: Callable[..., None] | None = None,
) -> BaseModel:
    """Continue a debate that was interrupted, replaying every call that had completed (not paid again).

    Pass `judges` (the judges file) again when the original file held literal API keys, which are never
    stored.
    """
    store = store or Store.open_default()
    row = store.get_debate(debate_id)
    if row is None:
        raise UsageError(f"no debate {debate_id} in {store.path}")
    if row.status == "finished":
        raise UsageError(f"debate {row.id} already finished: use 'moot show {row.id}'")
    resumer = RESUMERS.get(row.protocol)
    if resumer is None:
        raise UsageError(f"debate {row.id} uses protocol '{row.protocol}', which this version cannot resume")
    panel = load_panel_file(judges) if judges else None
    return await resumer(row.request, row.id, options_from_panel(panel, store=store, on_event=on_event), panel)


def resume_sync(*args: Any, **kwargs: Any) -> BaseModel:
    return asyncio.run(resume(*args, **kwargs))
