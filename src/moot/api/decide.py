"""`decide`: the adversarial debate over options (seed 002), as a Python API.

Every input is validated and every judge built (credentials checked) before the first call, so bad input
is a one-line `UsageError` and costs nothing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from moot.api.common import RESUMERS, JudgeLike, Panelist, apply_max_cost, load_panel, make_seats, options_from_panel
from moot.engine.core import Engine
from moot.engine.events import fan_out
from moot.engine.runner import run_steps
from moot.errors import UsageError
from moot.inputs import load_artifacts, load_yaml_file, validation_message
from moot.judges.base import Seat
from moot.panel_file import PanelFile
from moot.protocols.decide import Decision
from moot.protocols.decide_stances import DEFAULT_JUDGES, DEFAULT_STANCES, STANCE_PROMPTS
from moot.reports.decide import DecisionFiles
from moot.runs import RunOptions, run_debate
from moot.schemas.config import JudgeSpec
from moot.schemas.decide import DebateConfig, DebateContext, DecisionOption, DecisionRequest, DecisionResult
from moot.store.db import Store

DEFAULT_FEATURE_DIR = ".specs"
_OPTION_ARG = re.compile(r"^\s*([^\s=]+)\s*=(.*)$", re.DOTALL)


# inputs


def parse_option(text: str, position: int) -> DecisionOption:
    """`A=Online only: works with a connection` -> id A, label, description. Without `ID=` the option
    takes the letter of its position (A, B, C...)."""
    m = _OPTION_ARG.match(text)
    if m:
        oid, rest = m.group(1), m.group(2).strip()
    else:
        oid, rest = _letter(position), text.strip()
    if not rest:
        raise UsageError(f"--option {text!r}: the option has no text (write ID=LABEL[: description])")
    label, sep, description = rest.partition(": ")
    return _option({"id": oid, "label": label.strip(), "description": description.strip() if sep else ""})


def _letter(position: int) -> str:
    letters = ""
    n = position
    while True:
        letters = chr(ord("A") + n % 26) + letters
        n = n // 26 - 1
        if n < 0:
            return letters


def _option(data: dict[str, Any]) -> DecisionOption:
    try:
        return DecisionOption.model_validate(data)
    except ValidationError as e:
        raise UsageError(validation_message(e, "--option")) from None


def slug(text: str, limit: int = 48) -> str:
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()
    out = ""
    for w in words:
        candidate = f"{out}-{w}" if out else w
        if len(candidate) > limit:
            break
        out = candidate
    return out or "question"


def load_debate_context(source: str | Path | Mapping[str, Any]) -> DebateContext:
    """The seed's `debate_context` block, from a YAML file or a mapping (with or without the outer key)."""
    return load_debate_file(source)[0]


def load_debate_file(source: str | Path | Mapping[str, Any]) -> tuple[DebateContext, dict[str, Any] | None]:
    """A question file: the seed's `debate_context` block, and optionally its `debate_config` block beside it."""
    where = f"debate context {source}" if isinstance(source, str | Path) else "debate context"
    data = load_yaml_file(source, "debate context file") if isinstance(source, str | Path) else dict(source)
    if not isinstance(data, dict):
        raise UsageError(f"{where} must hold a YAML mapping (debate_context: ...)")
    config = None
    if "debate_context" in data:
        extra = set(data) - {"debate_context", "debate_config"}
        if extra:
            raise UsageError(f"{where}: unknown key {sorted(extra)[0]!r}")
        config = data.get("debate_config")
        if config is not None and not isinstance(config, dict):
            raise UsageError(f"{where}: debate_config must be a mapping")
        data = data["debate_context"]
    if not isinstance(data, dict):
        raise UsageError(f"{where}: debate_context must be a mapping")
    try:
        return DebateContext.model_validate(data), config
    except ValidationError as e:
        raise UsageError(validation_message(e, where)) from None


def _config(
    config: DebateConfig | Mapping[str, Any] | None, panel: PanelFile | None, threshold: float | None
) -> DebateConfig:
    if threshold is not None and not 0 < threshold <= 1:
        raise UsageError(f"--threshold must be in (0, 1] (got {threshold:g})")
    try:
        if isinstance(config, DebateConfig):
            cfg = config
        elif config is not None:
            cfg = DebateConfig.model_validate(dict(config))
        elif panel is not None and panel.debate_config is not None:
            cfg = DebateConfig.model_validate(panel.debate_config)
        else:
            cfg = DebateConfig()
        if threshold is not None:
            cfg = DebateConfig.model_validate({**cfg.model_dump(), "consensus_threshold": threshold})
    except ValidationError as e:
        where = f"judges file {panel.path}: debate_config" if panel is not None and config is None else "debate_config"
        raise UsageError(validation_message(e, where)) from None
    return cfg


def _with_stances(entries: Sequence[JudgeLike]) -> list[JudgeSpec | Panelist]:
    """A judge with no stance of its own takes the next of the seed's stances not yet on the panel."""
    specs: list[JudgeSpec | Panelist] = []
    for n, entry in enumerate(entries, 1):
        if isinstance(entry, JudgeSpec | Panelist):
            specs.append(entry)
            continue
        try:
            specs.append(JudgeSpec.model_validate({"model": entry} if isinstance(entry, str) else entry))
        except ValidationError as err:
            raise UsageError(validation_message(err, f"judge {n}")) from None
    taken = {s.stance for s in specs if isinstance(s, Panelist) or "stance" in s.model_fields_set}
    free = [s for s in DEFAULT_STANCES if s not in taken]
    out: list[JudgeSpec | Panelist] = []
    for spec in specs:
        if isinstance(spec, JudgeSpec) and "stance" not in spec.model_fields_set and free:
            spec = spec.model_copy(update={"stance": free.pop(0)})
            spec.model_fields_set.add("stance")
        out.append(spec)
    return out


def seat_ids(stances: Sequence[str]) -> list[str]:
    """Seat ids from stances ("risk", "value", "effort"); a repeated stance gets "-2", "-3"."""
    out: list[str] = []
    for stance in stances:
        base = re.sub(r"[^a-z0-9]+", "-", stance.lower()).strip("-") or "judge"
        sid, n = base, 1
        while sid in out:
            n += 1
            sid = f"{base}-{n}"
        out.append(sid)
    return out


def _seats(
    entries: Sequence[JudgeLike], cfg: DebateConfig, base_dir: Path | None, ids: Sequence[str] | None = None
) -> tuple[list[Seat], list[JudgeSpec]]:
    seats, specs = make_seats(
        entries, default_timeout=cfg.timeout_per_judge, base_dir=base_dir, stance_prompts=STANCE_PROMPTS
    )
    for seat, entry in zip(seats, entries, strict=True):
        if isinstance(entry, Panelist) and entry.timeout == 120.0:
            seat.timeout = cfg.timeout_per_judge
    for seat, sid in zip(seats, ids or seat_ids([s.stance for s in seats]), strict=True):
        seat.id = sid
    return seats, specs


def build_decision_request(
    question: str | None = None,
    options: Sequence[str | DecisionOption | Mapping[str, Any]] | None = None,
    *,
    context: str = "",
    context_files: Sequence[str] | None = None,
    debate_context: str | Path | Mapping[str, Any] | DebateContext | None = None,
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = None,
    config: DebateConfig | Mapping[str, Any] | None = None,
    threshold: float | None = None,
    question_id: str | None = None,
    feature_dir: str | Path | None = None,
    write_files: bool = True,
) -> tuple[DecisionRequest, list[Seat], PanelFile | None]:
    """Validate every input and build the judges, before any call. Raises UsageError on bad input."""
    ctx, config = _question(question, options, context, debate_context, config, question_id)
    ctx = _completed(ctx, context_files, question_id)
    panel, listed = load_panel(judges)
    entries = listed if listed is not None else list(DEFAULT_JUDGES)
    cfg = _config(config, panel, threshold)
    panelists = _with_stances(entries)
    if len(panelists) < 2:
        raise UsageError("a debate needs at least two judges")
    base_dir = panel.base_dir if panel else None
    seats, specs = _seats(panelists, cfg, base_dir)
    fdir = feature_dir or ctx.feature_dir or DEFAULT_FEATURE_DIR
    request = DecisionRequest(
        context=ctx,
        config=cfg,
        judges=specs,
        seat_ids=[s.id for s in seats],
        files_dir=str(Path(fdir) / "sadd") if write_files else None,
        base_dir=str(base_dir) if base_dir else None,
    )
    return request, seats, panel


def _question(
    question: str | None,
    options: Sequence[str | DecisionOption | Mapping[str, Any]] | None,
    context: str,
    debate_context: str | Path | Mapping[str, Any] | DebateContext | None,
    config: DebateConfig | Mapping[str, Any] | None,
    question_id: str | None,
) -> tuple[DebateContext, DebateConfig | Mapping[str, Any] | None]:
    """The question from either source (a question file's `debate_config` applies unless one is given)."""
    if debate_context is not None and (question or options):
        raise UsageError("give either --debate-context or --question with --option, not both")
    if isinstance(debate_context, DebateContext):
        return debate_context, config
    if debate_context is not None:
        ctx, file_config = load_debate_file(debate_context)
        return ctx, config if config is not None else file_config
    return _context_from_parts(question, options, context, question_id), config


def _completed(ctx: DebateContext, context_files: Sequence[str] | None, question_id: str | None) -> DebateContext:
    """The question with its context files appended, and an id (the one given, or a slug of the question)."""
    if context_files:
        extra = "\n\n".join(f"# {a.path}\n{a.text}" for a in load_artifacts(list(context_files)))
        ctx = ctx.model_copy(update={"spec_context": f"{ctx.spec_context}\n\n{extra}".strip()})
    if question_id:
        ctx = _validated(ctx, question_id=question_id)
    if not ctx.question_id:
        ctx = ctx.model_copy(update={"question_id": slug(ctx.question_text)})
    return ctx


def _validated(ctx: DebateContext, **update: Any) -> DebateContext:
    try:
        return DebateContext.model_validate({**ctx.model_dump(), **update})
    except ValidationError as e:
        raise UsageError(validation_message(e, "debate context")) from None


def _context_from_parts(
    question: str | None,
    options: Sequence[str | DecisionOption | Mapping[str, Any]] | None,
    context: str,
    question_id: str | None,
) -> DebateContext:
    if not question or not question.strip():
        raise UsageError("no question given (use --question TEXT, or --debate-context FILE)")
    parsed: list[DecisionOption] = []
    for n, o in enumerate(options or []):
        if isinstance(o, DecisionOption):
            parsed.append(o)
        elif isinstance(o, str):
            parsed.append(parse_option(o, n))
        else:
            parsed.append(_option(dict(o)))
    if len(parsed) < 2:
        raise UsageError(f"a decision needs at least two options (got {len(parsed)}): use --option ID=TEXT")
    try:
        return DebateContext(
            question_id=question_id or "", question_text=question, options=parsed, spec_context=context
        )
    except ValidationError as e:
        raise UsageError(validation_message(e, "--option")) from None


# running


async def run_decision(
    request: DecisionRequest, seats: list[Seat], options: RunOptions, *, resuming: bool = False
) -> DecisionResult:
    store = options.store or Store.open_default()
    options.store = store

    async def body(engine: Engine) -> DecisionResult:
        files = DecisionFiles(Path(request.files_dir), request.context.question_id) if request.files_dir else None
        if files is not None:
            engine.emit = fan_out(engine.emit, files)
        result = await run_steps(Decision(request, seats, engine.debate_id), engine)
        if files is not None:
            result.files = [*files.written, str(files.record_path)]
            files.write_record(result)
        return result

    title = f"decide {request.context.question_id}: {request.context.question_text}"
    return await run_debate("decide", request, title[:200], seats, body, options, resuming=resuming)


async def decide(
    question: str | None = None,
    options: Sequence[str | DecisionOption | Mapping[str, Any]] | None = None,
    *,
    context: str = "",
    debate_context: str | Path | Mapping[str, Any] | DebateContext | None = None,
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = None,
    config: DebateConfig | Mapping[str, Any] | None = None,
    threshold: float | None = None,
    question_id: str | None = None,
    feature_dir: str | Path | None = None,
    write_files: bool = True,
    store: Store | None = None,
    on_event: Callable[..., None] | None = None,
    max_cost: float | None = None,
) -> DecisionResult:
    """Debate a scope-critical question between judges with the Risk, Value and Effort stances.

    `options` are "ID=label: description" strings, mappings or `DecisionOption`s; or pass the seed's
    `debate_context` (a YAML file or mapping). Returns RECOMMENDED with the option, or CONTESTED with the
    distribution and every perspective, for a person to decide (see `record_choice`).

    `max_cost` (USD) caps the spend: round 2 does not start when its worst case could cross it, and the
    result says so.
    """
    request, seats, panel = build_decision_request(
        question,
        options,
        context=context,
        debate_context=debate_context,
        judges=judges,
        config=config,
        threshold=threshold,
        question_id=question_id,
        feature_dir=feature_dir,
        write_files=write_files,
    )
    run_options = options_from_panel(panel, store=store, on_event=on_event)
    apply_max_cost(run_options, seats, max_cost, "max_cost")
    return await run_decision(request, seats, run_options)


def decide_sync(*args: Any, **kwargs: Any) -> DecisionResult:
    """`decide`, for code that is not async."""
    return asyncio.run(decide(*args, **kwargs))


def record_choice(debate_id: str, option: str, *, store: Store | None = None) -> DecisionResult:
    """Record a person's choice for a contested decision: in the store, and in the decision record file."""
    from moot.parsing.decide import match_option

    store = store or Store.open_default()
    row = store.get_debate(debate_id)
    if row is None or row.protocol != "decide" or row.result is None:
        raise UsageError(f"no finished decision {debate_id} in {store.path}")
    result = DecisionResult.model_validate(row.result)
    if result.consensus:
        raise UsageError(f"decision {row.id} is not contested: the judges recommend {result.recommended_option}")
    chosen = match_option(option, result.options)
    if chosen is None:
        raise UsageError(f"{option!r} is not one of the options ({', '.join(o.id for o in result.options)})")
    result = result.model_copy(update={"user_choice": chosen, "decided_by": "user"})
    store.set_status(row.id, "finished", result=result.model_dump(mode="json"))
    request = DecisionRequest.model_validate(row.request)
    if request.files_dir and result.files:
        DecisionFiles(Path(request.files_dir), request.context.question_id).write_record(result)
    return result


async def _resume_decision(
    data: dict[str, Any], debate_id: str, options: RunOptions, panel: PanelFile | None
) -> BaseModel:
    request = DecisionRequest.model_validate(data)
    specs: list[JudgeLike] = list(panel.panel) if panel and panel.panel else list(request.judges)
    if len(specs) != len(request.judges):
        raise UsageError("the judges file given to resume has a different number of judges than the debate")
    specs = [
        s.model_copy(update={"stance": r.stance}) if isinstance(s, JudgeSpec) else s
        for s, r in zip(specs, request.judges, strict=True)
    ]
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = _seats(specs, request.config, base_dir, request.seat_ids or None)
    options.debate_id = debate_id
    return await run_decision(request, seats, options, resuming=True)


RESUMERS["decide"] = _resume_decision
