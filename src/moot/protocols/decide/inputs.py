"""`decide`'s inputs: options from the command line or the seed's `debate_context` block, the judges
with their stances, and the debate's settings, all validated before any call (bad input: UsageError)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from moot.inputs import load_artifacts, load_yaml_file, validation_message
from moot.protocol import JudgeLike, JudgeSpec, PanelFile, Seat, UsageError, check_rounds, make_seats
from moot.protocol.args import api_builder
from moot.protocol.panel import Panelist, check_stance, judge_spec, lineup
from moot.protocols.decide.params import DecideArgs
from moot.protocols.decide.schemas import (
    MAX_ROUNDS,
    ROUNDS,
    DebateConfig,
    DebateContext,
    DecideSettings,
    DecisionOption,
    DecisionRequest,
)
from moot.protocols.decide.stances import DEFAULT_JUDGES, DEFAULT_STANCES, STANCE_PROMPTS

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
        elif panel is not None and (written := panel.settings(DecideSettings).debate_config) is not None:
            cfg = DebateConfig.model_validate(written)
        else:
            cfg = DebateConfig()
        if threshold is not None:
            cfg = DebateConfig.model_validate({**cfg.model_dump(), "consensus_threshold": threshold})
    except ValidationError as e:
        raise UsageError(validation_message(e, _config_source(config, panel))) from None
    check_rounds(
        cfg.max_rounds, MAX_ROUNDS, ROUNDS, protocol="decide", where=f"{_config_source(config, panel)}: max_rounds"
    )
    return cfg


def _config_source(config: DebateConfig | Mapping[str, Any] | None, panel: PanelFile | None) -> str:
    return f"judges file {panel.path}: debate_config" if panel is not None and config is None else "debate_config"


def _with_stances(entries: Sequence[JudgeLike]) -> list[JudgeSpec | Panelist]:
    """A judge with no stance of its own takes the next of the seed's stances not yet on the panel."""
    specs = [e if isinstance(e, Panelist) else judge_spec(e, f"judge {n}") for n, e in enumerate(entries, 1)]
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


def decision_request(args: DecideArgs) -> tuple[DecisionRequest, list[Seat], PanelFile | None]:
    """Validate every input and build the judges, before any call. Raises UsageError on bad input."""
    ctx, config = _question(args)
    ctx = _completed(ctx, args.context_files, args.question_id)
    panel, _, entries = lineup(args.judges, DEFAULT_JUDGES)  # `judges="host"`: every seat answered by the caller
    cfg = _config(config, panel, args.threshold)
    panelists = _with_stances(entries)
    if len(panelists) < 2:
        raise UsageError("a debate needs at least two judges")
    for n, entry in enumerate(panelists, 1):
        check_stance(entry, f"judge {n}", STANCE_PROMPTS, "decide's stances are risk, value and effort")
    base_dir = panel.base_dir if panel else None
    seats, specs = _seats(panelists, cfg, base_dir)
    fdir = args.feature_dir or ctx.feature_dir or DEFAULT_FEATURE_DIR
    request = DecisionRequest(
        context=ctx,
        config=cfg,
        judges=specs,
        seat_ids=[s.id for s in seats],
        files_dir=str(Path(fdir) / "sadd") if args.write_files else None,
        base_dir=str(base_dir) if base_dir else None,
    )
    return request, seats, panel


build_decision_request = api_builder("build_decision_request", DecideArgs, decision_request)


def _question(args: DecideArgs) -> tuple[DebateContext, DebateConfig | Mapping[str, Any] | None]:
    """The question from either source (a question file's `debate_config` applies unless one is given)."""
    question, options, debate_context, config = args.question, args.options, args.debate_context, args.config
    if debate_context is not None and (question or options):
        raise UsageError("give either --debate-context or --question with --option, not both")
    if isinstance(debate_context, DebateContext):
        return debate_context, config
    if debate_context is not None:
        ctx, file_config = load_debate_file(debate_context)
        return ctx, config if config is not None else file_config
    return _context_from_parts(question, options, args.context, args.question_id), config


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
