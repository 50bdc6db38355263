"""`vote` as a Python API and its `SPEC`: what the registry, and so the CLI, the API, MCP and `moot batch`,
know of it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from moot.protocol import (
    Arg,
    CliSpec,
    JudgeLike,
    PanelFile,
    Prepared,
    ProtocolArgs,
    ProtocolSpec,
    Seat,
    TextReport,
    TextTable,
    UsageError,
    ViewSpec,
    api_function,
    arg,
    blocking,
    check_rounds,
    load_panel,
    make_seats,
    resumed_judges,
    scenarios,
    tokens_of,
)
from moot_toy.demo_spec import DEMO
from moot_toy.protocol import Vote
from moot_toy.schemas import MAX_ROUNDS, OUTCOME_WORDS, VERDICT, VoteRequest, VoteResult, VoteSettings


def prepared_vote(request: VoteRequest, seats: list[Seat], panel: PanelFile | None = None) -> Prepared:
    return Prepared(
        protocol="vote",
        request=request,
        title=f"vote: {request.question}",
        seats=seats,
        panel=panel,
        rounds=request.max_rounds,
        make=lambda debate_id: Vote(request, seats, debate_id),
        scenarios=lambda calls: scenarios(calls, request.max_rounds),
        input_tokens=tokens_of(request.question),
        input_name="question",
    )


class VoteArgs(ProtocolArgs):
    """What a vote takes, declared once: the function `vote`, the command `moot vote` and the MCP tool
    `vote` are built from it."""

    question: str = arg(details=Arg(help="The yes/no question.", argument=True, positional=True))
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = arg(
        None, Arg(help="Judges file (YAML): two judges or more.", type=str | None)
    )
    max_rounds: int | None = arg(None, Arg(help="Most rounds (1 or 2; default 2)."))

    settings = VoteSettings  # its key in a judges file (`vote: {rounds: N}`)


async def _build(args: VoteArgs, planning: bool) -> Prepared:
    """The question checked and the judges built; `planning` changes nothing (no judge is probed)."""
    question = args.question
    if not question or not question.strip():
        raise UsageError("the question is empty")
    given = args.max_rounds
    rounds = check_rounds(given, MAX_ROUNDS, "1 or 2", protocol="vote") if given is not None else MAX_ROUNDS
    panel, listed = load_panel(args.judges)
    if given is None and panel is not None and (block := panel.settings(VoteSettings).vote) is not None:
        rounds = block.rounds
    if not listed or len(listed) < 2:
        raise UsageError("a vote needs two judges or more")
    base_dir = panel.base_dir if panel else None
    seats, specs = make_seats(listed, base_dir=base_dir)
    request = VoteRequest(
        question=question, judges=specs, max_rounds=rounds, base_dir=str(base_dir) if base_dir else None
    )
    return prepared_vote(request, seats, panel)


vote = api_function(
    "vote",
    VoteArgs,
    _build,
    VoteResult,
    doc="Judges answer a yes/no question with a reason; when they split, each reads the others once.",
    run_options=("store", "on_event", "max_cost"),
)
vote_sync = blocking(vote)


async def _reprepare(data: dict[str, Any], panel: PanelFile | None) -> Prepared:
    """The stored vote prepared again; a judges file given to resume replaces the stored judges."""
    request = VoteRequest.model_validate(data)
    base_dir = Path(request.base_dir) if request.base_dir else None
    seats, _ = make_seats(resumed_judges(panel, request.judges), base_dir=base_dir)
    return prepared_vote(request, seats, panel)


def _text(result: VoteResult) -> TextReport:
    verdict = result.verdict
    rows = [[j.seat, j.model, *(a or "none" for a in j.answers.values()), j.fate] for j in result.judges]
    rounds = [f"Round {n}" for n in range(1, result.rounds_completed + 1)]
    return TextReport(
        headline=f"{(verdict.answer or 'NO MAJORITY').upper()}  ({verdict.kind}: {result.yes} yes, {result.no} no)",
        tone=VERDICT.tone(OUTCOME_WORDS.get(verdict.kind, "")) or "plain",
        facts=[f"Question: {result.question}"],
        blocks=[TextTable(["Judge", "Model", *rounds, "Status"], rows)],
    )


SPEC = ProtocolSpec.of(
    vote,
    _reprepare,
    ViewSpec(_text),
    exports={"vote": vote, "vote_sync": vote_sync, "VoteResult": VoteResult, "prepared_vote": prepared_vote},
    cli=CliSpec(
        help="Judges answer a yes/no question; they read each other once if they split.",
        description="Judges answer a yes/no question with a reason; when they split, each reads the others' "
        "answers and answers again. Consensus when all agree.",
    ),
    demo=DEMO,
    verdict=VERDICT,
)
