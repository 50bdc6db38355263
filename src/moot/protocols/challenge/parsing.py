"""Replies of the position challenge -> typed models. Raises ReplyError with a message meant for the judge.

Each reply is YAML or JSON, fenced or bare, with prose around it tolerated (see `extract_mapping`), then
validated with its phase's declared reply model (`moot.protocols.challenge.replies`). Words are matched
whole and case-insensitively ("Agree", "DISAGREE"), never by substring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from moot.parsing.extract import extract_mapping
from moot.parsing.replies import validate_reply
from moot.protocol import ReplyError, reply_parser
from moot.protocols.challenge.replies import (
    STRENGTH_WORDS,
    AssumptionsReply,
    ChallengeReply,
    ConfrontationReply,
    OpeningReply,
    RebuttalReply,
    VerdictReply,
    match_word,
    reply_model,
)
from moot.protocols.challenge.schemas import (
    AssumptionStatement,
    Challenge,
    Confrontation,
    ObjectionResponse,
    Opening,
    Rebuttal,
    Strength,
)

R = TypeVar("R", bound=ChallengeReply)


def _model(phase: str, kind: type[R], *, objection_ids: Sequence[str] = (), proponent: bool = False) -> type[R]:
    """The phase's declared reply (as `kind`, its declaration): the one the schema and the prompt use."""
    model = reply_model(phase, objection_ids=objection_ids, proponent=proponent)
    assert issubclass(model, kind)
    return model


def _mapping_with(text: str, key: str, *, hint: str = "") -> dict[str, Any]:
    """The reply's mapping, refused when it lacks `key`: the reply is worthless without its verdict word."""
    data = extract_mapping(text, required_any=(key,))
    if key not in data:
        raise ReplyError(f"the reply has no '{key}'{hint}")
    return data


@reply_parser
def parse_opening(text: str) -> Opening:
    reply = validate_reply(_model("opening", OpeningReply), extract_mapping(text, required_any=("position",)))
    return Opening.model_validate(reply.model_dump())


@reply_parser
def parse_challenge(text: str) -> Challenge:
    data = _mapping_with(text, "verdict")
    reply = validate_reply(_model("challenge", VerdictReply), data)
    strength: Strength | None = reply.objection_strength
    if strength is None:
        if reply.verdict == "agree" and not reply.objections:
            strength = "minor"  # nothing to weigh
        else:
            strength = match_word(data.get("objection_strength"), STRENGTH_WORDS, "objection_strength", upper=False)
    if reply.verdict != "agree" and not reply.objections:
        raise ReplyError(f"a '{reply.verdict}' verdict needs at least one entry in 'objections'")
    return Challenge(
        verdict=reply.verdict, objection_strength=strength, objections=reply.objections, reasoning=reply.reasoning
    )


@reply_parser
def parse_confrontation(text: str, *, objection_ids: Sequence[str]) -> Confrontation:
    """The proponent's answer to every open objection (by id), and its revised position."""
    model = _model("confront", ConfrontationReply, objection_ids=objection_ids)
    data = extract_mapping(text, required_any=("responses", "position"))
    reply = validate_reply(model, data, context={"objection_ids": list(objection_ids)})
    return Confrontation(
        responses=[ObjectionResponse.model_validate(r.model_dump()) for r in reply.responses],
        position=reply.position,
        confidence=reply.confidence,
        reasoning=reply.reasoning,
    )


@reply_parser
def parse_rebuttal(text: str) -> Rebuttal:
    reply = validate_reply(
        _model("rebuttal", RebuttalReply), _mapping_with(text, "response", hint=" (ACCEPT, MAINTAIN or ESCALATE)")
    )
    return Rebuttal.model_validate(reply.model_dump())


@reply_parser
def parse_assumptions(text: str) -> AssumptionStatement:
    reply = validate_reply(
        _model("assumptions", AssumptionsReply, proponent=True),
        extract_mapping(text, required_any=("why_disagree", "assumptions")),
    )
    return AssumptionStatement.model_validate(reply.model_dump())
