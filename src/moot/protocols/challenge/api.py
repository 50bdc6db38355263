"""`challenge`: a position defended against parallel challengers (seed 004), as a Python API.

Steps, each its own function: validate the inputs (bad input is a UsageError, before any call), find the
usable challengers (phase 0; none usable is `NotUsableHere`, exit 2, pointing at `moot doctor`), build the seats,
then run the debate in the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import moot.protocols.challenge.params as params
import moot.protocols.challenge.text as text
from moot.engine.budget import tokens_of
from moot.errors import NotUsableHere, UsageError
from moot.inputs import load_artifacts
from moot.judges.agent_cli import PROFILES, command_template
from moot.judges.base import Seat
from moot.judges.factory import build_seat
from moot.judges.host import HOST
from moot.judges.preflight import Availability, check_all
from moot.judges.providers import resolve
from moot.panel_file import PanelFile
from moot.protocol.args import api_builder, api_function
from moot.protocol.panel import (
    JudgeLike,
    Panelist,
    blocking,
    check_rounds,
    check_stance,
    hosted,
    judge_spec,
    load_panel,
    panelist_seat,
    stored_spec,
)
from moot.protocol.prepared import Prepared, RunOptions, run_prepared
from moot.protocol.spec import ProtocolSpec, ViewSpec, cli_from, named
from moot.protocols.challenge import schemas
from moot.protocols.challenge.calls import challenge_scenarios
from moot.protocols.challenge.html import challenge_view
from moot.protocols.challenge.params import DEMO, ChallengeArgs
from moot.protocols.challenge.protocol import CHALLENGER_PROMPT, PROPONENT_PROMPT, PositionChallenge
from moot.protocols.challenge.result import is_legacy_result
from moot.protocols.challenge.schemas import MAX_ROUNDS, ROUNDS, VERDICT, ChallengeRequest, ChallengeResult
from moot.protocols.challenge.text import challenge_github
from moot.render.terminal import TextReport
from moot.schemas.config import Artifact, JudgeSpec

# The seed's lineup: the proponent is Claude, the challengers are the other vendors' coding agents.
DEFAULT_PROPONENT: dict[str, Any] = {"cli": "claude"}
DEFAULT_CHALLENGERS: list[dict[str, Any]] = [{"cli": "gemini"}, {"cli": "codex"}, {"cli": "qwen"}]
DOCTOR_HINT = "run 'moot doctor' to see which judges are usable here"


def judge_entry(value: str) -> dict[str, Any]:
    """A judge named on the command line: a built-in agent CLI (`gemini`, `cli:gemini`) or a model name."""
    name = value.strip()
    if name.startswith("cli:"):
        return {"cli": name.removeprefix("cli:")}
    if name in PROFILES:
        return {"cli": name}
    return {"host": True} if name == HOST else {"model": name}  # `--proponent host`: the caller answers


def _entry(value: JudgeLike, where: str) -> JudgeSpec | Panelist:
    if isinstance(value, Panelist):
        return value
    return judge_spec(judge_entry(value) if isinstance(value, str) else value, where)


def _validate(spec: JudgeSpec, panel: PanelFile | None) -> None:
    """Errors in how a judge is written (unknown CLI, unknown provider) are bad input, not unusable judges."""
    if spec.replies is not None or spec.script or spec.host:
        return
    if spec.cli or spec.command:
        command_template(spec)
    else:
        resolve(spec, panel.aliases if panel else None)


@dataclass
class ChallengePlan:
    """Validated inputs of a challenge, before preflight."""

    topic: str
    context: list[Artifact]
    proponent: JudgeSpec | Panelist
    challengers: list[JudgeSpec | Panelist]
    max_rounds: int
    timeout_per_cli: float
    min_challengers: int
    panel: PanelFile | None


def challenge_plan(args: ChallengeArgs) -> ChallengePlan:
    """Validate every input. Raises UsageError (exit 2) on bad input; no judge is called or probed."""
    if not args.topic or not args.topic.strip():
        raise UsageError("the topic is empty: say what position to debate")
    panel, _ = load_panel(args.judges)  # with none given: MOOT_JUDGES or the nearest moot.yaml
    rounds, where = MAX_ROUNDS, "--max-rounds"
    if args.max_rounds is not None:
        rounds = args.max_rounds
    elif panel is not None and panel.max_rounds is not None:
        rounds, where = panel.max_rounds, f"judges file {panel.path}: max_rounds"
    check_rounds(rounds, MAX_ROUNDS, ROUNDS, protocol="challenge", where=where)
    block = schemas.challenge_settings(panel)
    timeout = args.timeout_per_cli if args.timeout_per_cli is not None else block.timeout_per_cli or 120.0
    if timeout <= 0:
        raise UsageError(f"timeout_per_cli must be a positive number of seconds (got {timeout:g})")
    minimum = args.min_challengers if args.min_challengers is not None else block.min_challengers or 1
    if minimum < 1:
        raise UsageError(f"min_challengers must be at least 1 (got {minimum}): a debate needs a challenger")
    arts = _context(args.context)
    prop_value: JudgeLike = args.proponent or block.proponent or DEFAULT_PROPONENT
    chal_values: list[JudgeLike]
    if args.challengers is not None:
        chal_values = list(args.challengers)
    elif block.challengers is not None:
        chal_values = list(block.challengers)
    else:
        chal_values = list(DEFAULT_CHALLENGERS)
    if not chal_values:
        raise UsageError("the challenger list is empty: a debate needs at least one challenger")
    if args.judges == HOST:  # every seat answered by the caller
        prop_value, *chal_values = hosted([prop_value, *chal_values])
    prop = _entry(prop_value, "proponent")
    chals = [_entry(v, f"challenger {n}") for n, v in enumerate(chal_values, 1)]
    hint = "in a challenge the role is the stance: proponent or challenger"
    check_stance(prop, "the proponent", ("neutral", "proponent"), hint)
    for n, chal in enumerate(chals, 1):
        check_stance(chal, f"challenger {n}", ("neutral", "challenger"), hint)
    for e in [prop, *chals]:
        if isinstance(e, JudgeSpec):
            _validate(e, panel)
    return ChallengePlan(args.topic.strip(), arts, prop, chals, rounds, timeout, minimum, panel)


plan_challenge = api_builder("plan_challenge", ChallengeArgs, challenge_plan)


def _context(context: str | Path | Sequence[str | Path | Artifact] | None) -> list[Artifact]:
    """The context files (paths, folders, globs) read, and texts a caller holds (`Artifact`s, under the
    name they give: a demo's bundled file is shown by its own name, not where the package is installed)."""
    if not context:
        return []
    given = [context] if isinstance(context, str | Path) else list(context)
    held = [c for c in given if isinstance(c, Artifact)]
    paths = [str(c) for c in given if not isinstance(c, Artifact)]
    return [*held, *(load_artifacts(paths) if paths else [])]


async def preflight(plan: ChallengePlan, *, planning: bool = False) -> tuple[list[int], list[str]]:
    """Phase 0: the numbers (1-based) of the usable challengers, and why the others were skipped.

    When only planning (a dry run), an API judge whose one problem is a missing key counts as usable: the
    plan is what the debate would be once the key is set, and nothing is sent.

    Raises NotUsableHere (a UsageError: exit 2 before any call, pointing at `moot doctor`, as a missing key
    is in every protocol) when the proponent is not usable or fewer challengers are usable than
    `min_challengers`.
    """
    specs = [e for e in [plan.proponent, *plan.challengers] if isinstance(e, JudgeSpec)]
    found = dict(zip(map(id, specs), await check_all(specs), strict=True))
    if planning:
        found = {k: _keyless_is_usable(a) for k, a in found.items()}
    if isinstance(plan.proponent, JudgeSpec):
        a = found[id(plan.proponent)]
        if not a.usable:
            raise NotUsableHere(f"the proponent '{plan.proponent.label}' is not usable here: {a.detail}; {DOCTOR_HINT}")
    usable: list[int] = []
    skipped: list[str] = []
    for n, entry in enumerate(plan.challengers, 1):
        if isinstance(entry, Panelist) or found[id(entry)].usable:
            usable.append(n)
        else:
            skipped.append(f"challenger-{n} ({entry.label}): {found[id(entry)].detail}")
    if not usable:
        raise NotUsableHere("no usable challengers (" + "; ".join(skipped) + f"); {DOCTOR_HINT}")
    if len(usable) < plan.min_challengers:
        raise NotUsableHere(
            f"only {len(usable)} usable challenger(s), fewer than min_challengers ({plan.min_challengers}): "
            + "; ".join(skipped)
            + f"; {DOCTOR_HINT}"
        )
    return usable, skipped


def _keyless_is_usable(a: Availability) -> Availability:
    if a.kind == "api" and not a.usable and a.credential.startswith("missing"):
        return replace(a, usable=True)
    return a


def _seat(
    entry: JudgeSpec | Panelist, *, seat_id: str, number: int, prompt: str, cli_timeout: float, base: Path | None
) -> Seat:
    if isinstance(entry, Panelist):
        return panelist_seat(entry, seat_id=seat_id, number=number, default_stance_prompt=prompt)
    is_cli = bool(entry.cli or entry.command)
    return build_seat(
        entry,
        seat_id=seat_id,
        number=number,
        default_stance_prompt=prompt,
        default_timeout=cli_timeout if is_cli else 120.0,
        base_dir=base,
    )


def build_seats(
    request: ChallengeRequest, proponent: JudgeSpec | Panelist, challengers: Sequence[JudgeSpec | Panelist]
) -> tuple[Seat, list[Seat]]:
    base = Path(request.base_dir) if request.base_dir else None
    timeout = request.timeout_per_cli
    prop = _seat(proponent, seat_id="proponent", number=0, prompt=PROPONENT_PROMPT, cli_timeout=timeout, base=base)
    seats = [
        _seat(e, seat_id=f"challenger-{n}", number=n, prompt=CHALLENGER_PROMPT, cli_timeout=timeout, base=base)
        for n, e in zip(request.challenger_numbers, challengers, strict=True)
    ]
    return prop, seats


def prepared_challenge(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], panel: PanelFile | None = None, **screen: bool
) -> Prepared:
    return Prepared(
        protocol="challenge",
        request=request,
        title=f"challenge: {request.topic}",
        seats=[proponent, *challengers],
        panel=panel,
        rounds=request.max_rounds,
        make=lambda debate_id: PositionChallenge(request, proponent, challengers, debate_id),
        scenarios=lambda calls: challenge_scenarios(calls, request.max_rounds),
        input_tokens=tokens_of("\n".join([request.topic, *(a.text for a in request.context)])),
        input_name="topic and context",
        plan_extra={"skipped": list(request.skipped)},
        redact_secrets=screen.get("redact_secrets", False),
    )


async def run_challenge(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], options: RunOptions, *, resuming: bool = False
) -> ChallengeResult:
    prepared = prepared_challenge(request, proponent, challengers)
    result: ChallengeResult = await run_prepared(prepared, options, resuming=resuming)
    return result


async def _build(args: ChallengeArgs, planning: bool) -> Prepared:
    """The prepared challenge. A dry run (`planning`) plans even a lineup a run would refuse (a proponent
    or too few challengers not usable here): it plans every seat and says, as a warning, why a run would
    stop; the judges a run could not call are named by the dry run's own warnings."""
    plan = challenge_plan(args)
    try:
        numbers, skipped = await preflight(plan, planning=planning)
    except NotUsableHere as e:
        if not planning:
            raise
        request, prop_seat, seats = _request_and_seats(plan, list(range(1, len(plan.challengers) + 1)), [])
        prepared = prepared_challenge(request, prop_seat, seats, plan.panel, redact_secrets=args.redact_secrets)
        prepared.plan_extra["warnings"] = [f"a run here would stop before its first call: {e}"]
        return prepared
    request, prop_seat, seats = _request_and_seats(plan, numbers, skipped)
    return prepared_challenge(request, prop_seat, seats, plan.panel, redact_secrets=args.redact_secrets)


async def build_challenge_request(
    topic: str, *, planning: bool = False, **kwargs: Any
) -> tuple[ChallengeRequest, Seat, list[Seat], PanelFile | None]:
    """Validate the inputs (`plan_challenge`'s arguments), find the usable challengers (phase 0, no prompt
    sent) and build the seats: everything a challenge (or its dry run) needs before the first call."""
    plan = plan_challenge(topic, **kwargs)
    numbers, skipped = await preflight(plan, planning=planning)
    request, prop_seat, seats = _request_and_seats(plan, numbers, skipped)
    return request, prop_seat, seats, plan.panel


def _request_and_seats(
    plan: ChallengePlan, numbers: list[int], skipped: list[str]
) -> tuple[ChallengeRequest, Seat, list[Seat]]:
    """The request for the challengers numbered `numbers` (1-based), and their seats."""
    chosen = [plan.challengers[n - 1] for n in numbers]
    panel = plan.panel
    request = ChallengeRequest(
        topic=plan.topic,
        context=plan.context,
        proponent=stored_spec(plan.proponent),
        challengers=[stored_spec(e) for e in chosen],
        challenger_numbers=numbers,
        skipped=skipped,
        max_rounds=plan.max_rounds,
        timeout_per_cli=plan.timeout_per_cli,
        min_challengers=plan.min_challengers,
        base_dir=str(panel.base_dir) if panel and panel.base_dir else None,
    )
    prop_seat, seats = build_seats(request, plan.proponent, chosen)
    return request, prop_seat, seats


DOC = """Defend a position on `topic` against challengers attacking it in parallel; end in CONSENSUS or a
TRADEOFF document. Judges are model names, built-in agent CLIs (`gemini`, `codex`, `qwen`, `claude`),
specs, or `Panelist`s; a judges file may hold `proponent:` and `challengers:`. By default the seed's
lineup: Claude Code defends, Gemini CLI, Codex and Qwen Code challenge.

`max_cost` (USD) caps the spend: no confrontation round starts whose worst case could cross it, and
the debate ends in a tradeoff from what was argued, saying so.
`author_model` names the model that wrote the artifact: a judge on it is flagged in `panel`.
"""
challenge = api_function("challenge", ChallengeArgs, _build, ChallengeResult, doc=DOC)
challenge_sync = blocking(challenge)


async def _reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    """The same seats again (the judges file again, when it held literal keys)."""
    request = ChallengeRequest.model_validate(data)
    proponent: JudgeSpec = request.proponent
    chosen: list[JudgeSpec] = list(request.challengers)
    if panel is not None:
        block = schemas.challenge_settings(panel)
        proponent = block.proponent or proponent
        if block.challengers is not None:
            try:
                chosen = [block.challengers[n - 1] for n in request.challenger_numbers]
            except IndexError:
                raise UsageError("the judges file given to resume has fewer challengers than the debate") from None
    prop_seat, seats = build_seats(request, proponent, chosen)
    return prepared_challenge(request, prop_seat, seats, panel)


def _text(result: ChallengeResult) -> TextReport:
    from moot.protocols.challenge.text import challenge_report

    return challenge_report(result)


# the judges `moot doctor` checks when no judges file is in effect: every agent CLI a challenge may seat
DOCTOR_JUDGES = tuple(("agent-cli", JudgeSpec(cli=name)) for name in PROFILES)

SPEC = ProtocolSpec.of(
    challenge,
    _reprepare,
    ViewSpec(_text, PositionChallenge.final_name, is_legacy_result, challenge_github, challenge_view),
    exports=named(
        challenge, challenge_sync, ChallengeResult, build_challenge_request, prepared_challenge, run_challenge
    ),
    cli=cli_from(
        params,
        format_after="max_rounds",
        formats=text.FORMATS,
        show=text.show,
        default_judges=DOCTOR_JUDGES,
        progress_total=params.progress_total,
    ),
    batch=params.BATCH,
    demo=DEMO,
    verdict=VERDICT,
)
