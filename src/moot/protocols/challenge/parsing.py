"""Replies of the position challenge -> typed models. Raises ReplyError with a message meant for the judge.

Each reply is YAML or JSON, fenced or bare, with prose around it tolerated (see `extract_mapping`), then
validated with its phase's declared reply model (`moot.protocols.challenge.replies`). Words are matched
whole and case-insensitively ("Agree", "DISAGREE"), never by substring.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from moot.grounding import Source, ground
from moot.parsing.extract import extract_mapping, preview
from moot.parsing.replies import validate_reply
from moot.protocol import ReplyError, reply_parser
from moot.protocols.challenge.replies import ChallengeReply, reply_model
from moot.protocols.challenge.schemas import AssumptionStatement, Challenge, Confrontation, Opening, Rebuttal

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
    return validate_reply(_model("opening", Opening), extract_mapping(text, required_any=("position",)))


def ask_for_quotes(reply: R, objections: Sequence[str], quotes: Sequence[str], shown: Sequence[Source]) -> R:
    """`reply` when each objection's quote (by place) is found in what was `shown`; else a ReplyError that sends
    it back once for verbatim quotes, the reply kept as it stands if the judge gives none (`usable`): the
    objection is then recorded and shown as not grounded, as evaluate's ungrounded CRITICAL finding is."""
    missing = []
    for i, objection in enumerate(objections):
        check = ground(quotes[i] if i < len(quotes) else "", shown)
        if not check.grounded:
            missing.append(f"{preview(objection)} ({check.reason})")
    if missing:
        raise ReplyError(
            "an objection stands only on a verbatim quote of what you were shown (the position, its reasoning, the "
            "context): give in `quotes`, one per objection in the same order, the exact words each rests on, "
            "copied, or drop the objection: " + "; ".join(missing),
            usable=reply,
        )
    return reply


@reply_parser
def parse_challenge(text: str, *, shown: Sequence[Source] = ()) -> Challenge:
    """The verdict, its objections and their strength (which an agreement without objections may leave out).
    With `shown`, a disagreement's objections must each quote it (`ask_for_quotes`)."""
    reply = validate_reply(_model("challenge", Challenge), _mapping_with(text, "verdict"))
    if shown and reply.verdict != "agree":
        return ask_for_quotes(reply, reply.objections, reply.quotes, shown)
    return reply


@reply_parser
def parse_confrontation(text: str, *, objection_ids: Sequence[str]) -> Confrontation:
    """The proponent's answer to every open objection (by id), and its revised position."""
    model = _model("confront", Confrontation, objection_ids=objection_ids)
    data = extract_mapping(text, required_any=("responses", "position"))
    return validate_reply(model, data, context={"objection_ids": list(objection_ids)})


@reply_parser
def parse_rebuttal(text: str, *, shown: Sequence[Source] = ()) -> Rebuttal:
    """ACCEPT, MAINTAIN or ESCALATE; with `shown`, the objections a MAINTAIN or ESCALATE lists must each quote it."""
    reply = validate_reply(
        _model("rebuttal", Rebuttal), _mapping_with(text, "response", hint=" (ACCEPT, MAINTAIN or ESCALATE)")
    )
    if shown and reply.response != "ACCEPT":
        return ask_for_quotes(reply, reply.objections, reply.quotes, shown)
    return reply


@reply_parser
def parse_assumptions(text: str) -> AssumptionStatement:
    return validate_reply(
        _model("assumptions", AssumptionStatement, proponent=True),
        extract_mapping(text, required_any=("why_disagree", "assumptions")),
    )
