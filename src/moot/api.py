"""The public Python API: `evaluate` (and, as they land, `decide`, `challenge`), `resume`, `show`.

Each debate function is async with a sync twin (`evaluate_sync`). The CLI and the MCP server are thin
adapters over these functions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from moot.errors import UsageError
from moot.inputs import load_artifacts, load_criteria, validation_message
from moot.judges.base import Judge, Seat
from moot.judges.factory import build_seat
from moot.panel_file import PanelFile, load_panel_file
from moot.protocols.evaluate import DEFAULT_JUDGES, STANCE_PROMPTS, Evaluation
from moot.reports.judge_files import JudgeReports, choose_base, solution_name
from moot.runs import RunOptions, run_debate
from moot.schemas.config import ConsensusSettings, JudgeSpec, VerdictThresholds
from moot.schemas.criteria import Criterion
from moot.schemas.evaluation import Artifact, EvaluationRequest, EvaluationResult
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


def _panel(
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None,
) -> tuple[PanelFile | None, list[JudgeLike]]:
    if judges is None:
        return None, list(DEFAULT_JUDGES)
    if isinstance(judges, str | Path):
        panel = load_panel_file(judges)
    elif isinstance(judges, PanelFile):
        panel = judges
    else:
        return None, list(judges)
    if panel.panel is None:
        raise UsageError(f"judges file {panel.path}: no 'debate_judges:' list")
    return panel, list(panel.panel)


def build_evaluation_request(
    solution: str | Sequence[str] | None = None,
    *,
    artifacts: Sequence[Artifact] | None = None,
    task: str = "",
    criteria: str | Sequence[Criterion] = "code",
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = None,
    consensus: ConsensusSettings | dict[str, Any] | None = None,
    thresholds: VerdictThresholds | dict[str, Any] | None = None,
    max_rounds: int | None = None,
    mode: Literal["complete", "quick"] = "complete",
    reports_dir: str | Path | None = ".specs/reports",
) -> tuple[EvaluationRequest, list[Seat], Seat | None, PanelFile | None]:
    """Validate every input and build the judges, before any call. Raises UsageError on bad input."""
    if max_rounds is not None and max_rounds < 1:
        raise UsageError(f"--max-rounds must be at least 1 (got {max_rounds})")
    if mode not in ("complete", "quick"):
        raise UsageError(f"--mode must be complete or quick (got {mode!r})")
    crit = load_criteria(criteria) if isinstance(criteria, str) else list(criteria)
    if not crit:
        raise UsageError("no criteria given")
    if artifacts is None:
        paths = [solution] if isinstance(solution, str) else list(solution or [])
        arts = load_artifacts(paths)
    else:
        arts = list(artifacts)
        if not arts:
            raise UsageError("no artifact given")
    panel, entries = _panel(judges)
    if not entries:
        raise UsageError("the judge list is empty")
    if len(entries) < 2:
        raise UsageError("a debate needs at least two judges")
    seats, specs = make_seats(entries, base_dir=panel.base_dir if panel else None)
    moderator_seat = None
    moderator_spec = panel.moderator if panel else None
    if moderator_spec is not None:
        moderator_seat = build_seat(
            moderator_spec, seat_id="moderator", number=0, base_dir=panel.base_dir if panel else None
        )
    try:
        cons = ConsensusSettings.model_validate(consensus) if isinstance(consensus, dict) else consensus
        thr = VerdictThresholds.model_validate(thresholds) if isinstance(thresholds, dict) else thresholds
    except ValidationError as e:
        raise UsageError(validation_message(e, "settings")) from None
    cons = cons or (panel.consensus if panel and panel.consensus else ConsensusSettings())
    thr = thr or (panel.verdict if panel and panel.verdict else VerdictThresholds())
    rounds = max_rounds or (panel.max_rounds if panel and panel.max_rounds else 3)
    name = solution_name([a.path for a in arts])
    rdir = str(reports_dir) if reports_dir else None
    request = EvaluationRequest(
        artifacts=arts,
        task=task,
        criteria=crit,
        judges=specs,
        moderator=moderator_spec,
        consensus=cons,
        thresholds=thr,
        max_rounds=rounds,
        mode=mode,
        reports_dir=rdir,
        solution_name=name,
        report_base=choose_base(Path(rdir), name, date.today()) if rdir else "",  # noqa: DTZ011
        base_dir=str(panel.base_dir) if panel and panel.base_dir else None,
    )
    return request, seats, moderator_seat, panel


def options_from_panel(panel: PanelFile | None, **kwargs: Any) -> RunOptions:
    """Run options with the judges file's `retry:` and `limits:` settings applied."""
    from moot.engine import RetryPolicy
    from moot.engine.limits import Limits, ProviderLimit

    options = RunOptions(**kwargs)
    if panel is None:
        return options
    try:
        if panel.retry:
            options.policy = RetryPolicy(**panel.retry)
        if panel.limits:
            per = {k: ProviderLimit(**v) for k, v in panel.limits.items() if k != "default"}
            default = (
                ProviderLimit(**panel.limits["default"]) if "default" in panel.limits else ProviderLimit()
            )
            options.limits = Limits(default=default, per_provider=per)
    except TypeError as e:
        raise UsageError(f"judges file {panel.path}: {e}") from None
    return options


async def run_evaluation(
    request: EvaluationRequest,
    seats: list[Seat],
    moderator: Seat | None,
    options: RunOptions,
    *,
    resuming: bool = False,
) -> EvaluationResult:
    store = options.store or Store.open_default()
    options.store = store

    async def body(engine: Any) -> EvaluationResult:
        reports = None
        if request.reports_dir:
            reports = JudgeReports(Path(request.reports_dir), request.report_base, store, engine.debate_id)
        return await Evaluation(request, seats, engine, moderator=moderator, reports=reports).run()

    title = f"evaluate {request.artifacts[0].path}" + (f": {request.task}" if request.task else "")
    all_seats = seats + ([moderator] if moderator else [])
    return await run_debate("evaluate", request, title[:200], all_seats, body, options, resuming=resuming)


async def evaluate(
    solution: str | Sequence[str] | None = None,
    *,
    task: str = "",
    criteria: str | Sequence[Criterion] = "code",
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = None,
    artifacts: Sequence[Artifact] | None = None,
    consensus: ConsensusSettings | dict[str, Any] | None = None,
    thresholds: VerdictThresholds | dict[str, Any] | None = None,
    max_rounds: int | None = None,
    mode: Literal["complete", "quick"] = "complete",
    reports_dir: str | Path | None = ".specs/reports",
    store: Store | None = None,
    on_event: Callable[..., None] | None = None,
) -> EvaluationResult:
    """Run the scored multi-judge debate over an artifact and return its verdict.

    `solution` names files, folders or globs; or pass `artifacts` directly. `judges` is a judges file,
    or a list of specs / dicts / model names / `Panelist`s; by default the seeds' three-vendor lineup.
    """
    request, seats, moderator, panel = build_evaluation_request(
        solution,
        artifacts=artifacts,
        task=task,
        criteria=criteria,
        judges=judges,
        consensus=consensus,
        thresholds=thresholds,
        max_rounds=max_rounds,
        mode=mode,
        reports_dir=reports_dir,
    )
    options = options_from_panel(panel, store=store, on_event=on_event)
    return await run_evaluation(request, seats, moderator, options)


def evaluate_sync(*args: Any, **kwargs: Any) -> EvaluationResult:
    """`evaluate`, for code that is not async."""
    return asyncio.run(evaluate(*args, **kwargs))


# resume and show, over every protocol

Resumer = Callable[[dict[str, Any], str, RunOptions, PanelFile | None], Awaitable[BaseModel]]
RESUMERS: dict[str, Resumer] = {}


async def _resume_evaluation(
    data: dict[str, Any], debate_id: str, options: RunOptions, panel: PanelFile | None
) -> BaseModel:
    request = EvaluationRequest.model_validate(data)
    specs: list[JudgeLike] = list(panel.panel) if panel and panel.panel else list(request.judges)
    if len(specs) != len(request.judges):
        raise UsageError("the judges file given to resume has a different number of judges than the debate")
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = make_seats(specs, base_dir=base_dir)
    moderator = None
    mod_spec = (panel.moderator if panel else None) or request.moderator
    if mod_spec is not None:
        moderator = build_seat(mod_spec, seat_id="moderator", number=0, base_dir=base_dir)
    options.debate_id = debate_id
    return await run_evaluation(request, seats, moderator, options, resuming=True)


RESUMERS["evaluate"] = _resume_evaluation


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
    return await resumer(
        row.request, row.id, options_from_panel(panel, store=store, on_event=on_event), panel
    )


def resume_sync(*args: Any, **kwargs: Any) -> BaseModel:
    return asyncio.run(resume(*args, **kwargs))
