"""`evaluate`: the scored multi-judge debate over an artifact, as a Python API."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import moot.protocols.evaluate.params as params
from moot.engine.budget import scenarios, tokens_of
from moot.errors import UsageError
from moot.inputs import load_artifacts, validation_message
from moot.judges.base import Seat
from moot.judges.factory import build_seat
from moot.panel_file import PanelFile
from moot.protocol.args import api_builder, api_function
from moot.protocol.panel import (
    JudgeLike,
    blocking,
    check_rounds,
    check_stance,
    judge_spec,
    lineup,
    make_seats,
    resumed_judges,
)
from moot.protocol.prepared import Prepared, RunOptions, run_prepared
from moot.protocol.spec import ProtocolSpec, ViewSpec, cli_from, named
from moot.protocols.evaluate.criteria import Criterion, load_criteria
from moot.protocols.evaluate.follow_up import load_earlier
from moot.protocols.evaluate.html import evaluate_view
from moot.protocols.evaluate.markdown import JudgeReports, choose_base, solution_name
from moot.protocols.evaluate.params import DEMO, EvaluateArgs
from moot.protocols.evaluate.protocol import DEFAULT_JUDGES, STANCE_PROMPTS, Evaluation
from moot.protocols.evaluate.schemas import MAX_ROUNDS, ROUNDS, VERDICT, EvaluationRequest, EvaluationResult
from moot.protocols.evaluate.settings import ConsensusSettings, VerdictThresholds, evaluate_settings
from moot.protocols.evaluate.text import evaluation_github, show
from moot.render.terminal import TextReport
from moot.schemas.config import Artifact, JudgeSpec
from moot.store.db import Store


def _request(args: EvaluateArgs) -> tuple[EvaluationRequest, list[Seat], Seat | None, PanelFile | None]:
    """Validate every input and build the judges, before any call. Raises UsageError on bad input."""
    if args.max_rounds is not None:
        check_rounds(args.max_rounds, MAX_ROUNDS, ROUNDS, protocol="evaluate")
    if args.mode not in ("complete", "quick"):
        raise UsageError(f"--mode must be complete or quick (got {args.mode!r})")
    auto = isinstance(args.criteria, str) and args.criteria.strip().lower() == AUTO
    crit = [] if auto else _criteria(args.criteria)
    changed = args.diff is not None or args.patch is not None
    solution, given = args.solution, args.artifacts
    arts = _changed(solution, given, args.diff, args.patch) if changed else _artifacts(solution, given)
    panel, entries = _panel(args.judges)
    base_dir = panel.base_dir if panel else None
    seats, specs = make_seats(entries, base_dir=base_dir, stance_prompts=STANCE_PROMPTS)
    moderator_spec = judge_spec(args.moderator, "moderator") if args.moderator else evaluate_settings(panel).moderator
    writer = rubric_writer(panel, specs, moderator_spec) if auto else None
    moderator_seat = _moderator(moderator_spec, base_dir)
    cons, thr = _settings(args.consensus, args.thresholds, panel)
    name = solution_name([a.path for a in arts])
    rdir = str(args.reports_dir) if args.reports_dir else None
    request = EvaluationRequest(
        artifacts=arts,
        task=args.task,
        criteria=crit,
        judges=specs,
        moderator=moderator_spec,
        consensus=cons,
        thresholds=thr,
        max_rounds=_rounds(args.max_rounds, panel),
        mode=args.mode,
        reports_dir=rdir,
        solution_name=name,
        report_base=choose_base(Path(rdir), name, date.today()) if rdir else "",  # noqa: DTZ011
        base_dir=str(base_dir) if base_dir else None,
        criteria_auto=auto,
        rubric_writer=writer,
        earlier=load_earlier(args.follow_up) if args.follow_up else None,
    )
    return request, seats, moderator_seat, panel


build_evaluation_request = api_builder("build_evaluation_request", EvaluateArgs, _request)


AUTO = "auto"  # `--criteria auto`: a rubric written for the task by one call before round 1


def rubric_writer(panel: PanelFile | None, specs: Sequence[JudgeSpec], moderator: JudgeSpec | None) -> JudgeSpec:
    """Who writes an `auto` rubric: the judges file's `rubric_model:`, else the moderator (`--moderator`, else
    the judges file's), else the first judge (as a plain seat: no stance). A host one makes the rubric call a
    host request, as `--judges host` alone does."""
    chosen = evaluate_settings(panel).rubric_model or moderator
    if chosen is None:
        chosen = specs[0].model_copy(update={"stance": "neutral", "stance_prompt": None, "name": None})
    return chosen


def _rubric_seat(request: EvaluationRequest, base_dir: Path | None) -> Seat | None:
    spec = request.rubric_writer if request.criteria_auto else None
    return build_seat(spec, seat_id="rubric", number=0, base_dir=base_dir) if spec is not None else None


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


def _changed(
    solution: str | Sequence[str] | None, artifacts: Sequence[Artifact] | None, diff: str | None, patch: str | None
) -> list[Artifact]:
    """A change as the artifact (`moot.diffs`): the changed files' hunks, never the files it leaves alone;
    each file left out (binary, deleted, renamed unchanged) is named on one line."""
    from moot.diffs import git_change, patch_change

    named = (("--solution", solution), ("artifacts", artifacts), ("--diff", diff), ("--patch", patch))
    given = [n for n, v in named if v]
    if len(given) > 1:
        raise UsageError(f"give one of {' or '.join(given)}, not both")
    change = git_change(diff) if diff is not None else patch_change(patch or "")
    for line in change.skipped:
        print(f"moot: {line}", file=sys.stderr)  # noqa: T201 - one line per file left out, as the CLI's notes
    return change.artifacts


def _panel(judges: str | Path | PanelFile | Sequence[JudgeLike] | None) -> tuple[PanelFile | None, list[JudgeLike]]:
    """The judges file (if any) and the panel, refused before any call when it could not debate. A judges
    file named on purpose must hold `debate_judges:`; a found moot.yaml may be there for another protocol."""
    panel, listed, entries = lineup(judges, DEFAULT_JUDGES)
    if panel is not None and listed is None and panel.found_by is None:  # a found moot.yaml may hold none
        raise UsageError(f"judges file {panel.path}: no 'debate_judges:' list")
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
    block = evaluate_settings(panel)
    cons = cons or block.consensus or ConsensusSettings()
    thr = thr or block.verdict or VerdictThresholds()
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


def _shown_path(path: str) -> str:
    """A path as a debate's title shows it: relative to the working folder when under it, as a command's
    own argument usually is (a batch item's path arrives resolved against its items file's folder)."""
    given = Path(path)
    if given.is_absolute() and given.is_relative_to(Path.cwd()):
        return given.relative_to(Path.cwd()).as_posix()
    return path


def prepared_evaluation(
    request: EvaluationRequest,
    seats: list[Seat],
    moderator: Seat | None,
    panel: PanelFile | None = None,
    *,
    redact_secrets: bool = False,
) -> Prepared:
    title = f"evaluate {_shown_path(request.artifacts[0].path)}" + (f": {request.task}" if request.task else "")
    base_dir = Path(request.base_dir) if request.base_dir else None
    writer = _rubric_seat(request, base_dir)
    return Prepared(
        protocol="evaluate",
        request=request,
        title=title,
        seats=seats + ([moderator] if moderator else []) + ([writer] if writer else []),
        panel=panel,
        rounds=request.rounds_allowed,
        make=lambda debate_id: Evaluation(request, seats, debate_id, moderator=moderator, rubric_writer=writer),
        scenarios=lambda calls: scenarios(
            [c for c in calls if c.round], request.rounds_allowed, [c for c in calls if not c.round]
        ),
        files=lambda store, debate_id: _judge_reports(request, store, debate_id),
        input_tokens=sum(tokens_of(a.text) for a in request.artifacts),
        panel_seats=seats,
        redact_secrets=redact_secrets,
    )


async def _build(args: EvaluateArgs, planning: bool) -> Prepared:
    """`planning` changes nothing here: no judge of an evaluation is probed before the run."""
    request, seats, moderator, panel = _request(args)
    return prepared_evaluation(request, seats, moderator, panel, redact_secrets=args.redact_secrets)


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


DOC = """Run the scored multi-judge debate over an artifact and return its verdict.

`solution` names files, folders or globs; or pass `artifacts` directly; or judge a change: `diff` is a
git range in the current work tree (`HEAD~1`, `main...HEAD`), `patch` a unified diff file (`-`: stdin).
`follow_up` names an earlier evaluation: its findings are re-checked on this version (`follow_up` in the result).
`judges` is a judges file, or a list of specs / dicts / model names / `Panelist`s; by default the seeds'
three-vendor lineup; `"host"` makes every seat of it a host seat, whose replies the caller gives
(`submit_replies`). `moderator` (`"host"`, a model, a spec) writes the synthesis, in place of the file's.
`max_cost` (USD) caps the spend: no round starts whose worst case could cross it.
`author_model` names the model that wrote the artifact: a judge on it is flagged in `panel`.
A secret in the inputs refuses the run before any call (`moot.secrets.SecretFound`, a UsageError) unless
`redact_secrets`, which sends `[REDACTED:<kind>]` in its place and lists it in the result's `redactions`.
"""
evaluate = api_function("evaluate", EvaluateArgs, _build, EvaluationResult, doc=DOC)
evaluate_sync = blocking(evaluate)


async def _reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    """The stored debate prepared again; a judges file given to resume replaces the stored judges."""
    request = EvaluationRequest.model_validate(data)
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = make_seats(resumed_judges(panel, request.judges), base_dir=base_dir, stance_prompts=STANCE_PROMPTS)
    moderator = _moderator(evaluate_settings(panel).moderator or request.moderator, base_dir)
    return prepared_evaluation(request, seats, moderator, panel)


def _text(result: EvaluationResult) -> TextReport:
    from moot.protocols.evaluate.text import evaluation_report

    return evaluation_report(result)


# the judges `moot doctor` checks when no judges file is in effect: the default panel
DOCTOR_JUDGES = tuple(("judge", JudgeSpec.model_validate(d)) for d in DEFAULT_JUDGES)

SPEC = ProtocolSpec.of(
    evaluate,
    _reprepare,
    ViewSpec(_text, Evaluation.final_name, github_markdown=evaluation_github, html_view=evaluate_view),
    exports=named(
        evaluate, evaluate_sync, EvaluationResult, build_evaluation_request, prepared_evaluation, run_evaluation
    ),
    cli=cli_from(params, format_after="mode", formats=("sarif",), show=show, default_judges=DOCTOR_JUDGES),
    batch=params.BATCH,
    bench=params.BENCH,
    demo=DEMO,
    verdict=VERDICT,
)
