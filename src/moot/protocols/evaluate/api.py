"""`evaluate`: the scored multi-judge debate over an artifact, as a Python API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

import moot.protocols.evaluate.params as params
from moot.engine.budget import scenarios, tokens_of
from moot.engine.panel import (
    JudgeLike,
    blocking,
    check_rounds,
    check_stance,
    load_panel,
    make_seats,
    resumed_judges,
)
from moot.engine.prepared import Prepared, run_prepared
from moot.engine.runs import RunOptions
from moot.engine.spec import ProtocolSpec, run_spec
from moot.errors import UsageError
from moot.inputs import load_artifacts, load_criteria, validation_message
from moot.judges.base import Seat
from moot.judges.factory import build_seat
from moot.panel_file import PanelFile
from moot.protocols.evaluate.html import evaluate_view
from moot.protocols.evaluate.markdown import JudgeReports, choose_base, solution_name
from moot.protocols.evaluate.params import DEMO
from moot.protocols.evaluate.protocol import DEFAULT_JUDGES, STANCE_PROMPTS, Evaluation
from moot.protocols.evaluate.schemas import MAX_ROUNDS, ROUNDS, EvaluationRequest, EvaluationResult
from moot.protocols.evaluate.text import evaluation_github
from moot.reports.terminal import TextReport
from moot.schemas.config import Artifact, ConsensusSettings, JudgeSpec, VerdictThresholds
from moot.schemas.criteria import Criterion
from moot.store.db import Store


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
    if max_rounds is not None:
        check_rounds(max_rounds, MAX_ROUNDS, ROUNDS, protocol="evaluate")
    if mode not in ("complete", "quick"):
        raise UsageError(f"--mode must be complete or quick (got {mode!r})")
    crit = _criteria(criteria)
    arts = _artifacts(solution, artifacts)
    panel, entries = _panel(judges)
    base_dir = panel.base_dir if panel else None
    seats, specs = make_seats(entries, base_dir=base_dir, stance_prompts=STANCE_PROMPTS)
    moderator_spec = panel.moderator if panel else None
    moderator_seat = _moderator(moderator_spec, base_dir)
    cons, thr = _settings(consensus, thresholds, panel)
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
        max_rounds=_rounds(max_rounds, panel),
        mode=mode,
        reports_dir=rdir,
        solution_name=name,
        report_base=choose_base(Path(rdir), name, date.today()) if rdir else "",  # noqa: DTZ011
        base_dir=str(base_dir) if base_dir else None,
    )
    return request, seats, moderator_seat, panel


def _criteria(criteria: str | Sequence[Criterion]) -> list[Criterion]:
    crit = load_criteria(criteria) if isinstance(criteria, str) else list(criteria)
    if not crit:
        raise UsageError("no criteria given")
    return crit


def _artifacts(solution: str | Sequence[str] | None, artifacts: Sequence[Artifact] | None) -> list[Artifact]:
    """Code may pass artifacts it holds in memory; the command line names files, folders or globs."""
    if artifacts is None:
        return load_artifacts([solution] if isinstance(solution, str) else list(solution or []))
    arts = list(artifacts)
    if not arts:
        raise UsageError("no artifact given")
    return arts


def _panel(judges: str | Path | PanelFile | Sequence[JudgeLike] | None) -> tuple[PanelFile | None, list[JudgeLike]]:
    """The judges file (if any) and the panel, refused before any call when it could not debate. A judges
    file named on purpose must hold `debate_judges:`; a found moot.yaml may be there for another protocol."""
    panel, listed = load_panel(judges)
    if panel is not None and listed is None and panel.found_by is None:  # a found moot.yaml may hold none
        raise UsageError(f"judges file {panel.path}: no 'debate_judges:' list")
    entries: list[JudgeLike] = listed if listed is not None else list(DEFAULT_JUDGES)
    if not entries:
        raise UsageError("the judge list is empty")
    if len(entries) < 2:
        raise UsageError("a debate needs at least two judges")
    for n, entry in enumerate(entries, 1):
        check_stance(entry, f"judge {n}", STANCE_PROMPTS, "evaluate's stances are neutral, for and against")
    return panel, entries


def _moderator(spec: JudgeSpec | None, base_dir: Path | None) -> Seat | None:
    """The same seat for a new debate and a resumed one (none when no moderator is named)."""
    return build_seat(spec, seat_id="moderator", number=0, base_dir=base_dir) if spec is not None else None


def _settings(
    consensus: ConsensusSettings | dict[str, Any] | None,
    thresholds: VerdictThresholds | dict[str, Any] | None,
    panel: PanelFile | None,
) -> tuple[ConsensusSettings, VerdictThresholds]:
    """Settings given as mappings are validated here, so that a typo is bad input (exit 2) before any call;
    those given win over the judges file's, which win over the defaults."""
    try:
        cons = ConsensusSettings.model_validate(consensus) if isinstance(consensus, dict) else consensus
        thr = VerdictThresholds.model_validate(thresholds) if isinstance(thresholds, dict) else thresholds
    except ValidationError as e:
        raise UsageError(validation_message(e, "settings")) from None
    cons = cons or (panel.consensus if panel and panel.consensus else ConsensusSettings())
    thr = thr or (panel.verdict if panel and panel.verdict else VerdictThresholds())
    return cons, thr


def _rounds(max_rounds: int | None, panel: PanelFile | None) -> int:
    """A judges file's `max_rounds` is checked only when it applies, and the message names the file."""
    if max_rounds is None and panel is not None and panel.max_rounds is not None:
        where = f"judges file {panel.path}: max_rounds"
        check_rounds(panel.max_rounds, MAX_ROUNDS, ROUNDS, protocol="evaluate", where=where)
    return max_rounds or (panel.max_rounds if panel and panel.max_rounds else MAX_ROUNDS)


def _judge_reports(request: EvaluationRequest, store: Store, debate_id: str) -> JudgeReports | None:
    """The per-judge report files, written as rounds complete (none without a reports folder)."""
    if not request.reports_dir:
        return None
    return JudgeReports(
        Path(request.reports_dir),
        request.report_base,
        store,
        debate_id,
        weights={c.key: c.weight for c in request.criteria},
        artifacts=list(request.artifacts),
        task=request.task,
    )


def prepared_evaluation(
    request: EvaluationRequest, seats: list[Seat], moderator: Seat | None, panel: PanelFile | None = None
) -> Prepared:
    title = f"evaluate {request.artifacts[0].path}" + (f": {request.task}" if request.task else "")
    return Prepared(
        protocol="evaluate",
        request=request,
        title=title,
        seats=seats + ([moderator] if moderator else []),
        panel=panel,
        rounds=request.rounds_allowed,
        make=lambda debate_id: Evaluation(request, seats, debate_id, moderator=moderator),
        scenarios=lambda calls: scenarios(
            [c for c in calls if c.round], request.rounds_allowed, [c for c in calls if not c.round]
        ),
        files=lambda store, debate_id: _judge_reports(request, store, debate_id),
        input_tokens=sum(tokens_of(a.text) for a in request.artifacts),
        panel_seats=seats,
    )


async def _build(solution: str | Sequence[str] | None = None, *, planning: bool = False, **kwargs: Any) -> Prepared:
    """`planning` changes nothing here: no judge of an evaluation is probed before the run."""
    request, seats, moderator, panel = build_evaluation_request(solution, **kwargs)
    return prepared_evaluation(request, seats, moderator, panel)


async def run_evaluation(
    request: EvaluationRequest,
    seats: list[Seat],
    moderator: Seat | None,
    options: RunOptions,
    *,
    resuming: bool = False,
) -> EvaluationResult:
    result: EvaluationResult = await run_prepared(
        prepared_evaluation(request, seats, moderator), options, resuming=resuming
    )
    return result


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
    max_cost: float | None = None,
) -> EvaluationResult:
    """Run the scored multi-judge debate over an artifact and return its verdict.

    `solution` names files, folders or globs; or pass `artifacts` directly. `judges` is a judges file,
    or a list of specs / dicts / model names / `Panelist`s; by default the seeds' three-vendor lineup.
    `max_cost` (USD) caps the spend: no round starts whose worst case could cross it.
    """
    result: EvaluationResult = await run_spec(SPEC, locals())
    return result


evaluate_sync = blocking(evaluate)


async def _reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    """The stored debate prepared again; a judges file given to resume replaces the stored judges."""
    request = EvaluationRequest.model_validate(data)
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = make_seats(resumed_judges(panel, request.judges), base_dir=base_dir, stance_prompts=STANCE_PROMPTS)
    moderator = _moderator((panel.moderator if panel else None) or request.moderator, base_dir)
    return prepared_evaluation(request, seats, moderator, panel)


def _text(result: EvaluationResult) -> TextReport:
    from moot.protocols.evaluate.text import evaluation_report

    return evaluation_report(result)


# the judges `moot doctor` checks when no judges file is in effect: the default panel
DOCTOR_JUDGES = tuple(("judge", JudgeSpec.model_validate(d)) for d in DEFAULT_JUDGES)

SPEC = ProtocolSpec(
    "evaluate",
    _reprepare,
    EvaluationResult,
    _text,
    _build,
    params.adapt,
    exports={
        "evaluate": evaluate,
        "evaluate_sync": evaluate_sync,
        "EvaluationResult": EvaluationResult,
        "build_evaluation_request": build_evaluation_request,
        "prepared_evaluation": prepared_evaluation,
        "run_evaluation": run_evaluation,
    },
    batch=params.BATCH,
    bench=params.BENCH,
    final_name=Evaluation.final_name,
    github_markdown=evaluation_github,
    html_view=evaluate_view,
    default_judges=DOCTOR_JUDGES,
    demo=DEMO,
    params=params.PARAMS,
    reply_minimum=params.reply_minimum,
    description=params.DESCRIPTION,
    mcp_description=params.MCP_DESCRIPTION,
    mcp_summary=params.MCP_SUMMARY,
    scored=True,
    require_words=("PASS", "CONDITIONAL"),
)
