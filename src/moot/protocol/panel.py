"""Pieces every protocol's API shares: panels of seats, run options from a judges file, resume."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Collection, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from pydantic import ValidationError

from moot.engine.budget import Budget
from moot.engine.pricing import Pricing
from moot.errors import UsageError
from moot.inputs import validation_message
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_seat
from moot.judges.host import HOST
from moot.panel_file import PanelFile, load_panel_file
from moot.protocol.prepared import Prepared, RunOptions
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Usage


@dataclass
class Panelist:
    """A judge built in code (a `FunctionJudge`, a `ScriptedJudge`, your own) with its seat's stance."""

    judge: Judge
    stance: str = "neutral"
    stance_prompt: str | None = None
    name: str | None = None
    timeout: float = 120.0


JudgeLike = JudgeSpec | dict[str, Any] | Panelist | str


def judge_spec(entry: JudgeSpec | dict[str, Any] | str, where: str) -> JudgeSpec:
    """A judge written as a spec, a mapping or a model name, validated (bad input names `where`)."""
    if isinstance(entry, JudgeSpec):
        return entry
    if isinstance(entry, str):  # a model name, or `host`: a seat the caller answers
        entry = {"host": True} if entry == HOST else {"model": entry}
    try:
        return JudgeSpec.model_validate(entry)
    except ValidationError as e:
        raise UsageError(validation_message(e, where)) from None


def hosted(entries: Sequence[JudgeLike]) -> list[JudgeLike]:
    """A lineup with every seat a host seat (`--judges host`): each keeps its stance and stance prompt."""
    out: list[JudgeLike] = []
    for n, entry in enumerate(entries, 1):
        if isinstance(entry, Panelist):
            out.append(JudgeSpec(host=True, stance=entry.stance, stance_prompt=entry.stance_prompt))
            continue
        kept = judge_spec(entry, f"judge {n}").model_dump(include={"stance", "stance_prompt"}, exclude_unset=True)
        out.append(JudgeSpec.model_validate({"host": True, **kept}))  # a stance left unset stays the protocol's to give
    return out


def panelist_seat(entry: Panelist, *, seat_id: str, number: int, default_stance_prompt: str) -> Seat:
    """The seat of a judge built in code: its own stance prompt, else the protocol's for its stance."""
    return Seat(
        id=seat_id,
        number=number,
        label=entry.name or entry.judge.model,
        stance=entry.stance,
        stance_prompt=entry.stance_prompt or default_stance_prompt,
        judges=[entry.judge],
        timeout=entry.timeout,
    )


def stored_spec(entry: JudgeSpec | Panelist) -> JudgeSpec:
    """What the store keeps of a judge: a judge built in code is kept by its model, name and stance."""
    if isinstance(entry, Panelist):
        return JudgeSpec(model=entry.judge.model, name=entry.name, stance=entry.stance)
    return entry


def make_seats(
    entries: Sequence[JudgeLike],
    *,
    prefix: str = "judge",
    default_timeout: float = 120.0,
    base_dir: Path | None = None,
    stance_prompts: dict[str, str] | None = None,
) -> tuple[list[Seat], list[JudgeSpec]]:
    """Seats for a panel, numbered from 1; plus the storable specs (code-built judges have none). A judge
    whose stance has no prompt in `stance_prompts` (the protocol's own) is told its stance by name."""
    prompts = stance_prompts or {}
    seats: list[Seat] = []
    specs: list[JudgeSpec] = []
    for n, entry in enumerate(entries, 1):
        seat_id = f"{prefix}-{n}"
        if isinstance(entry, Panelist):
            prompt = prompts.get(entry.stance, "")
            seats.append(panelist_seat(entry, seat_id=seat_id, number=n, default_stance_prompt=prompt))
            specs.append(stored_spec(entry))
            continue
        spec = judge_spec(entry, f"judge {n}")
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


def check_stance(entry: JudgeLike, who: str, known: Collection[str], hint: str) -> None:
    """A stance the protocol has no guidance for, given without a `stance_prompt`, would reach the judge as
    a bare word (or be ignored): refuse it, naming the judge, before any call. `hint` names the protocol's
    own stances."""
    if isinstance(entry, Panelist):
        label, stance, stance_prompt, chosen = entry.name or entry.judge.model, entry.stance, entry.stance_prompt, True
    else:
        spec = judge_spec(entry, who)
        label, stance, stance_prompt = spec.label, spec.stance, spec.stance_prompt
        chosen = "stance" in spec.model_fields_set
    if stance in known or (stance_prompt and stance_prompt.strip()):
        return
    if not chosen:
        raise UsageError(f"{who} ({label}) has no stance left to take ({hint}): give it a stance and a stance_prompt")
    raise UsageError(f"{who} ({label}): stance '{stance}' needs a stance_prompt ({hint})")


def check_rounds(value: int, most: int, rounds: str, *, protocol: str, where: str = "--max-rounds") -> int:
    """Rounds past the last one a protocol defines would only repeat an earlier kind of round (priced and
    reported as if they did not exist): refuse them before any call, saying what the protocol has."""
    if value < 1:
        raise UsageError(f"{where} must be at least 1 (got {value})")
    if value > most:
        raise UsageError(f"{where} {value} is more than {protocol} can honour: at most {most} ({rounds})")
    return value


def lineup(
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None, default: Sequence[JudgeLike]
) -> tuple[PanelFile | None, list[JudgeLike] | None, list[JudgeLike]]:
    """The judges file (if any), the panel it lists (None: it lists none) and the lineup to seat: the listed
    panel, else the protocol's `default`, each seat a host seat with `judges="host"` (`hosted`)."""
    panel, listed = load_panel(judges)
    entries = listed if listed is not None else list(default)
    return panel, listed, hosted(entries) if judges == HOST else entries


def load_panel(
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None,
) -> tuple[PanelFile | None, list[JudgeLike] | None]:
    """A judges argument as (the judges file, if any; its panel list, or None when none was given).

    With no judges given, the project's judges file applies (`MOOT_JUDGES`, else the nearest
    `moot.yaml`; see `moot.project`), else the protocol's built-in lineup.
    """
    if judges == HOST:  # every seat of the protocol's lineup answered by the caller (`hosted`)
        return None, None
    if judges is None:
        from moot.project import project_panel

        panel = project_panel()
        if panel is None:
            return None, None
    elif isinstance(judges, str | Path):
        panel = load_panel_file(judges)
    elif isinstance(judges, PanelFile):
        panel = judges
    else:
        return None, list(judges)
    return panel, list(panel.panel) if panel.panel is not None else None


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


def with_max_cost(budget: Budget | None, max_cost: float | None, flag: str = "--max-cost") -> Budget | None:
    """The run's budget with a cost cap applied (the cap wins over the judges file's `budget:`)."""
    if max_cost is None:
        return budget
    if isinstance(max_cost, bool) or not isinstance(max_cost, int | float) or not max_cost > 0:
        raise UsageError(f"{flag} must be a positive number of dollars (got {max_cost!r})")
    return Budget(max_cost_usd=float(max_cost), wall_seconds=budget.wall_seconds if budget else None)


def check_priced(seats: Sequence[Seat], pricing: Pricing | None, flag: str = "--max-cost") -> None:
    """Under a cap every model needs a price, or the cap could not be kept: say which, before any call."""
    table = pricing or Pricing()
    probe = Usage(input_tokens=1000, output_tokens=1000)
    missing = sorted({j.model for s in seats for j in s.judges if table.judge_cost(j, probe) is None})
    if missing:
        raise UsageError(
            f"{flag} needs a price for {', '.join(missing)}: add it under 'pricing:' in the judges file "
            "(input_per_mtok, output_per_mtok)"
        )


def apply_max_cost(
    options: RunOptions, seats: Sequence[Seat], max_cost: float | None, flag: str = "--max-cost"
) -> None:
    """Put a cost cap into the run options and check, before any call, that it can be kept."""
    options.budget = with_max_cost(options.budget, max_cost, flag)
    if options.budget is not None and options.budget.max_cost_usd is not None:
        check_priced(seats, options.pricing, flag)


def with_author(prepared: Prepared, author_model: str | None) -> Prepared:
    """The prepared debate told which model wrote its artifact: the argument (`--author-model`, the API's
    and MCP's `author_model`), else the judges file's `author_model:`; a blank name is bad input."""
    if author_model is not None and (not isinstance(author_model, str) or not author_model.strip()):
        raise UsageError("--author-model must name a model (e.g. gpt-5.2)")
    given = author_model or (prepared.panel.author_model if prepared.panel else None)
    prepared.author_model = given.strip() if given else None
    return prepared


def resumed_judges(panel: PanelFile | None, stored: Sequence[JudgeSpec]) -> list[JudgeLike]:
    """The judges a resumed debate runs with: a judges file given to resume replaces the stored judges,
    one for one (the debate's seats and what they said are fixed)."""
    judges: list[JudgeLike] = list(panel.panel) if panel and panel.panel else list(stored)
    if len(judges) != len(stored):
        raise UsageError("the judges file given to resume has a different number of judges than the debate")
    return judges


P = ParamSpec("P")
R = TypeVar("R")


def blocking(protocol: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, R]:
    """The `_sync` twin of an async API function, for code that is not async: the same arguments (and
    the same signature for type checkers and `help()`), run to completion in a new event loop."""

    @functools.wraps(protocol)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return asyncio.run(protocol(*args, **kwargs))

    run.__name__ = run.__qualname__ = f"{protocol.__name__}_sync"
    run.__doc__ = f"`{protocol.__name__}`, for code that is not async."
    return run
