"""Replies of the position challenge -> typed models. Raises ReplyError with a message meant for the judge.

Each reply is YAML or JSON, fenced or bare, with prose around it tolerated (see `extract_mapping`).
Words are matched whole and case-insensitively ("Agree", "DISAGREE"), never by substring.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypeVar, get_args

from moot.parsing.extract import ReplyError, as_list, as_text, extract_mapping, preview, reply_parser
from moot.protocols.challenge.schemas import (
    AssumptionStatement,
    Challenge,
    ChallengeVerdict,
    Confrontation,
    ObjectionDecision,
    ObjectionResponse,
    Opening,
    PositionConfidence,
    Rebuttal,
    RebuttalResponse,
    Strength,
)

T = TypeVar("T", bound=str)


def _words(literal: Any, aliases: dict[str, T]) -> dict[str, T]:
    """A reply word -> the schema's word: each of the `Literal`'s own words, and the other words judges write
    for them."""
    return {**{word: word for word in get_args(literal)}, **aliases}


_CONFIDENCE: dict[str, PositionConfidence] = _words(PositionConfidence, {"MED": "MEDIUM"})
_VERDICTS: dict[str, ChallengeVerdict] = _words(
    ChallengeVerdict,
    {"agreed": "agree", "partially agree": "partial", "partial agree": "partial", "disagreed": "disagree"},
)
_STRENGTHS: dict[str, Strength] = _words(Strength, {"weak": "minor", "major": "strong"})
_DECISIONS: dict[str, ObjectionDecision] = _words(
    ObjectionDecision, {"ACCEPTED": "ACCEPT", "PARTIALLY ACCEPT": "PARTIAL", "REJECTED": "REJECT"}
)
_REBUTTALS: dict[str, RebuttalResponse] = _words(
    RebuttalResponse, {"ACCEPTED": "ACCEPT", "MAINTAINED": "MAINTAIN", "ESCALATED": "ESCALATE"}
)
_OBJECTION_ID = re.compile(r"^\s*\[?(O\d+)\]?\b", re.IGNORECASE)


def _word(value: Any, table: dict[str, Any], what: str, *, upper: bool) -> Any:
    key = " ".join(as_text(value).replace("_", " ").split())
    key = key.upper() if upper else key.lower()
    if key in table:
        return table[key]
    choices = " | ".join(dict.fromkeys(table.values()))
    raise ReplyError(f"{what} must be one of {choices} (got {preview(value)})")


def _required_text(data: dict[str, Any], key: str) -> str:
    text = as_text(data.get(key))
    if not text:
        raise ReplyError(f"the reply has no '{key}'")
    return text


def _mapping_with(text: str, key: str, *, hint: str = "") -> dict[str, Any]:
    """The reply's mapping, refused when it lacks `key`: the reply is worthless without its verdict word."""
    data = extract_mapping(text, required_any=(key,))
    if key not in data:
        raise ReplyError(f"the reply has no '{key}'{hint}")
    return data


def _items(value: Any) -> list[str]:
    """A list of strings or of objects with a `text` (or another prose field)."""
    out = []
    for item in as_list(value):
        if isinstance(item, dict):
            lowered = {str(k).lower(): v for k, v in item.items()}
            text = as_text(
                lowered.get("text")
                or lowered.get("objection")
                or lowered.get("assumption")
                or lowered.get("description")
                or lowered
            )
        else:
            text = as_text(item)
        if text:
            out.append(text)
    return out


@reply_parser
def parse_opening(text: str) -> Opening:
    data = extract_mapping(text, required_any=("position",))
    return Opening(
        position=_required_text(data, "position"),
        reasoning=_required_text(data, "reasoning"),
        confidence=_word(data.get("confidence"), _CONFIDENCE, "confidence", upper=True),
        weaknesses=_items(data.get("weaknesses")),
        assumptions=_items(data.get("assumptions")),
    )


@reply_parser
def parse_challenge(text: str) -> Challenge:
    data = _mapping_with(text, "verdict")
    verdict = _word(data["verdict"], _VERDICTS, "verdict", upper=False)
    raw_strength = data.get("objection_strength")
    objections = _items(data.get("objections"))
    if raw_strength in (None, "") and verdict == "agree" and not objections:
        strength: Strength = "minor"  # nothing to weigh
    else:
        strength = _word(raw_strength, _STRENGTHS, "objection_strength", upper=False)
    if verdict != "agree" and not objections:
        raise ReplyError(f"a '{verdict}' verdict needs at least one entry in 'objections'")
    return Challenge(
        verdict=verdict, objection_strength=strength, objections=objections, reasoning=as_text(data.get("reasoning"))
    )


def _response_id(item: dict[str, Any], index: int, ids: Sequence[str]) -> str:
    for key in ("objection", "objection_id", "id"):
        value = item.get(key)
        if value is None:
            continue
        m = _OBJECTION_ID.match(as_text(value))
        if m:
            return m.group(1).upper()
    # no id given: objections are answered in the order they were listed
    return ids[index] if index < len(ids) else ""


@reply_parser
def parse_confrontation(text: str, *, objection_ids: Sequence[str]) -> Confrontation:
    """The proponent's answer to every open objection (by id), and its revised position."""
    data = extract_mapping(text, required_any=("responses", "position"))
    responses: dict[str, ObjectionResponse] = {}
    for index, item in enumerate(as_list(data.get("responses"))):
        if not isinstance(item, dict):
            raise ReplyError("each entry of 'responses' must be a mapping with objection, decision and reason")
        item = {str(k).lower(): v for k, v in item.items()}
        oid = _response_id(item, index, objection_ids)
        if oid not in objection_ids:
            continue  # an answer to something that was not asked is ignored, not an error
        responses[oid] = ObjectionResponse(
            objection=oid,
            decision=_word(item.get("decision"), _DECISIONS, f"the decision on {oid}", upper=True),
            reason=as_text(item.get("reason") or item.get("reasoning")),
        )
    missing = [oid for oid in objection_ids if oid not in responses]
    if missing:
        raise ReplyError(
            "'responses' must answer every objection with ACCEPT, PARTIAL or REJECT: missing " + ", ".join(missing)
        )
    raw_conf = data.get("confidence")
    return Confrontation(
        responses=[responses[oid] for oid in objection_ids],
        position=_required_text(data, "position"),
        confidence=_word(raw_conf, _CONFIDENCE, "confidence", upper=True) if raw_conf not in (None, "") else None,
        reasoning=as_text(data.get("reasoning")),
    )


@reply_parser
def parse_rebuttal(text: str) -> Rebuttal:
    data = _mapping_with(text, "response", hint=" (ACCEPT, MAINTAIN or ESCALATE)")
    return Rebuttal(
        response=_word(data["response"], _REBUTTALS, "response", upper=True),
        reasoning=as_text(data.get("reasoning")),
        objections=_items(data.get("objections")),
    )


@reply_parser
def parse_assumptions(text: str) -> AssumptionStatement:
    data = extract_mapping(text, required_any=("why_disagree", "assumptions"))
    return AssumptionStatement(
        why_disagree=_required_text(data, "why_disagree"),
        what_would_change_my_mind=_required_text(data, "what_would_change_my_mind"),
        assumptions=_items(data.get("assumptions")),
        core_disagreement=as_text(data.get("core_disagreement")),
    )
