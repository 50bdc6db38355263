"""`decide`: the option-choice debate (Risk, Value and Effort judges, seed 002), as a Python API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import moot.protocols.decide.params as params
import moot.protocols.decide.terminal as terminal
from moot.engine.budget import scenarios, tokens_of
from moot.inputs import load_artifacts
from moot.judges.base import Seat
from moot.panel_file import PanelFile
from moot.protocol.args import api_function
from moot.protocol.panel import blocking, resumed_judges
from moot.protocol.prepared import Prepared, RunOptions, run_prepared
from moot.protocol.spec import ProtocolSpec, ViewSpec, cli_from, named
from moot.protocols.decide.files import DecisionFiles
from moot.protocols.decide.html import decide_view
from moot.protocols.decide.inputs import DEFAULT_FEATURE_DIR as DEFAULT_FEATURE_DIR
from moot.protocols.decide.inputs import _seats, decision_request
from moot.protocols.decide.inputs import build_decision_request as build_decision_request
from moot.protocols.decide.inputs import load_debate_context as load_debate_context
from moot.protocols.decide.inputs import load_debate_file as load_debate_file
from moot.protocols.decide.inputs import parse_option as parse_option
from moot.protocols.decide.inputs import seat_ids as seat_ids
from moot.protocols.decide.inputs import slug as slug
from moot.protocols.decide.params import DEMO, DecideArgs
from moot.protocols.decide.protocol import Decision
from moot.protocols.decide.schemas import (
    VERDICT,
    DecisionRequest,
    DecisionResult,
)
from moot.protocols.decide.stances import DEFAULT_MODEL
from moot.protocols.decide.terminal import record_choice as record_choice
from moot.protocols.decide.text import decision_github
from moot.render.terminal import TextReport
from moot.schemas.config import JudgeSpec
from moot.secrets import refuse_files


def prepared_decision(
    request: DecisionRequest, seats: list[Seat], panel: PanelFile | None = None, *, redact_secrets: bool = False
) -> Prepared:
    ctx = request.context
    options = [f"{o.label} {o.description}" for o in ctx.options]
    context_text = "\n".join([ctx.question_text, *options, ctx.spec_context])
    return Prepared(
        protocol="decide",
        request=request,
        title=f"decide {ctx.question_id}: {ctx.question_text}",
        seats=seats,
        panel=panel,
        rounds=request.config.rounds_run,
        make=lambda debate_id: Decision(request, seats, debate_id),
        scenarios=lambda calls: scenarios(calls, request.config.rounds_run),
        files=lambda _store, _id: _files(request),
        input_tokens=tokens_of(context_text),
        input_name="question and context",
        redact_secrets=redact_secrets,
    )


def _files(request: DecisionRequest) -> DecisionFiles | None:
    """The judges' files and the decision record (none when files are switched off)."""
    return DecisionFiles(Path(request.files_dir), request.context.question_id) if request.files_dir else None


async def _build(args: DecideArgs, planning: bool) -> Prepared:
    """`planning` changes nothing here: no judge of a decision is probed before the run. Context files are
    joined into one text: a secret in one is refused here first, so that the message names its file."""
    if not args.redact_secrets and args.context_files:
        refuse_files([(a.path, a.text) for a in load_artifacts(list(args.context_files))])
    request, seats, panel = decision_request(args)
    return prepared_decision(request, seats, panel, redact_secrets=args.redact_secrets)


async def run_decision(
    request: DecisionRequest, seats: list[Seat], options: RunOptions, *, resuming: bool = False
) -> DecisionResult:
    result: DecisionResult = await run_prepared(prepared_decision(request, seats), options, resuming=resuming)
    return result


DOC = """Debate a scope-critical question between judges with the Risk, Value and Effort stances.

`options` are "ID=label: description" strings, mappings or `DecisionOption`s; or pass the seed's
`debate_context` (a YAML file or mapping). Returns RECOMMENDED with the option, or CONTESTED with the
distribution and every perspective, for a person to decide (see `record_choice`). `context_files`
names files or folders whose text joins the context, as `moot decide --context` does.

`max_cost` (USD) caps the spend: round 2 does not start when its worst case could cross it, and the
result says so. A secret in the question or context refuses the run before any call unless
`redact_secrets` (see `moot.secrets`).
`author_model` names the model that wrote the artifact: a judge on it is flagged in `panel`.
"""
decide = api_function("decide", DecideArgs, _build, DecisionResult, doc=DOC)
decide_sync = blocking(decide)


async def _reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    """The stored debate prepared again; a judges file given to resume replaces the stored judges."""
    request = DecisionRequest.model_validate(data)
    specs = [
        s.model_copy(update={"stance": r.stance}) if isinstance(s, JudgeSpec) else s
        for s, r in zip(resumed_judges(panel, request.judges), request.judges, strict=True)
    ]
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = _seats(specs, request.config, base_dir, request.seat_ids or None)
    return prepared_decision(request, seats, panel)


def _text(result: DecisionResult) -> TextReport:
    from moot.protocols.decide.text import decision_report

    return decision_report(result)


# the judges `moot doctor` checks when no judges file is in effect: the default panel's three stances on
# one model, checked once
DOCTOR_JUDGES = (("decide", JudgeSpec(model=DEFAULT_MODEL)),)

SPEC = ProtocolSpec.of(
    decide,
    _reprepare,
    ViewSpec(_text, Decision.final_name, github_markdown=decision_github, html_view=decide_view),
    exports=named(
        decide, decide_sync, DecisionResult, build_decision_request, prepared_decision, run_decision, record_choice
    ),
    cli=cli_from(
        params,
        format_after="write_files",
        show=terminal.show,
        default_judges=DOCTOR_JUDGES,
        human_choice=terminal.human_choice,
        record_choice=terminal.record_human_choice,
    ),
    batch=params.BATCH,
    bench=params.BENCH,
    demo=DEMO,
    verdict=VERDICT,
)
