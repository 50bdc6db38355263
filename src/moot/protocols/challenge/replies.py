"""The replies of the position challenge, declared once each: the schema sent, the prompt's template and
the parser's validation all come from these models (see `moot.parsing.replies`).

The parsers stay lenient as they always were: words are matched whole and without regard to case, with
the other words judges write for them ("agreed", "MED"); a list may be one string, or entries with a
`text`; the errors a judge is sent back name the key and the words allowed. A phase's shape that depends
on the debate (the objection ids to answer, whether the proponent names the core disagreement) is a
specialization of its declared model (`reply_model`).

A model validated is also the reply as the debate keeps it: `schemas.Opening`, `Challenge`, `Confrontation`,
`Rebuttal` and `AssumptionStatement` are these models, so a field is declared here and nowhere else.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BeforeValidator, ValidationInfo, field_validator, model_validator

from moot.parsing.extract import as_list, preview
from moot.protocol import (
    LongText,
    ReplyError,
    ReplyModel,
    Required,
    Text,
    as_text,
    items,
    one_of,
    reply_example,
    reply_field,
    reply_schema,
    specialize,
)
from moot.schemas.reply_bounds import Schema
from moot.schemas.words import CONFIDENCE, Confidence, Meaning, Words

W = TypeVar("W", bound=str)
_OBJECTION_ID = re.compile(r"^\s*\[?(O\d+)\]?\b", re.IGNORECASE)


# each word a reply gives (the schema's enum), what the parser reads as each, and what it means
PositionConfidence = Confidence
ChallengeVerdict = Literal["agree", "partial", "disagree"]
VERDICT_WORDS: Words[ChallengeVerdict] = Words.of(
    ChallengeVerdict,
    {"agreed": "agree", "partially agree": "partial", "partial agree": "partial", "disagreed": "disagree"},
    {"agree": Meaning("agreed", 3), "partial": Meaning("partial", 2), "disagree": Meaning("disagreed", 1)},
    upper=False,
)
Strength = Literal["minor", "strong"]
STRENGTH_WORDS: Words[Strength] = Words.of(Strength, {"weak": "minor", "major": "strong"}, upper=False)
ObjectionDecision = Literal["ACCEPT", "PARTIAL", "REJECT"]
DECISION_WORDS: Words[ObjectionDecision] = Words.of(
    ObjectionDecision, {"ACCEPTED": "ACCEPT", "PARTIALLY ACCEPT": "PARTIAL", "REJECTED": "REJECT"}
)
RebuttalResponse = Literal["ACCEPT", "MAINTAIN", "ESCALATE"]
REBUTTAL_WORDS: Words[RebuttalResponse] = Words.of(
    RebuttalResponse,
    {"ACCEPTED": "ACCEPT", "MAINTAINED": "MAINTAIN", "ESCALATED": "ESCALATE"},
    {"ACCEPT": Meaning("accepted", 3), "MAINTAIN": Meaning("maintained", 1), "ESCALATE": Meaning("escalated", 1)},
)


def match_word(value: Any, words: Words[W], what: str) -> W:
    """The set's word for `value`, or a ReplyError naming `what` and the words allowed."""
    found = words.read(as_text(value))
    if found is None:
        raise ReplyError(f"{what} must be one of {' | '.join(words.words)} (got {preview(value)})")
    return found


def entries(value: Any) -> list[str]:
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


Entries = Annotated[list[Text], BeforeValidator(entries), items()]  # texts: one string, or entries with a `text`


# each objection's quote, checked by moot (`moot.grounding`): an objection whose words are not found is marked
_QUOTES = "one verbatim quote per objection, in the same order: the exact words of the position or context it answers"
_QUOTE_EXAMPLE = "{the exact words of the position or context each objection answers, copied}"


class ChallengeReply(ReplyModel):
    """The base of the challenge's replies: words shown bare in the template, keys named in quotes."""

    quote_words = False
    missing_message = "the reply has no '{key}'"


class OpeningReply(ChallengeReply):
    position: Annotated[LongText, Required] = reply_field(
        "what you hold, and under which conditions",
        example="{one or two sentences: what you hold, and under which conditions}",
    )
    reasoning: Annotated[Text, Required] = reply_field(
        example="{why: the main arguments, with the evidence or mechanism behind each}", block=True
    )
    confidence: PositionConfidence = reply_field(default=None, validate_default=True)
    weaknesses: Entries = reply_field(default_factory=list, example="{a real weakness of this position}")
    assumptions: Entries = reply_field(default_factory=list, example="{an assumption the position depends on}")

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        return match_word(value, CONFIDENCE, "confidence")


class VerdictReply(ChallengeReply):
    example_format = "json"
    quote_words = True

    verdict: ChallengeVerdict = reply_field()
    # left out, it is weighed once the objections are read (`_weighed`): validated, it is always a word
    objection_strength: Strength = reply_field(default=None)
    objections: Annotated[list[Text], BeforeValidator(entries), items(min_items=1)] = reply_field(
        "one specific objection per entry", default_factory=list
    )
    quotes: Entries = reply_field(_QUOTES, example=_QUOTE_EXAMPLE, default_factory=list)
    reasoning: LongText = reply_field(
        "what you examined and why you conclude this",
        example="{your reasoning: what you examined and why you conclude this}",
        default="",
    )

    @field_validator("verdict", mode="before")
    @classmethod
    def _verdict(cls, value: Any) -> Any:
        return match_word(value, VERDICT_WORDS, "verdict")

    @field_validator("objection_strength", mode="plain")
    @classmethod
    def _strength(cls, value: Any) -> Any:
        """The strength's word; one left out (None, "") is kept as written for `_weighed` to judge."""
        return value if value in (None, "") else match_word(value, STRENGTH_WORDS, "objection_strength")

    @model_validator(mode="after")
    def _weighed(self) -> VerdictReply:
        """Only an agreement without objections may leave their strength out (minor: nothing to weigh); a
        verdict other than agree needs at least one objection."""
        given: object = self.objection_strength  # None or "" when left out (`_strength`)
        if not given:
            if self.verdict == "agree" and not self.objections:
                self.objection_strength = "minor"
            else:  # refused as any word not allowed is, naming the words
                self.objection_strength = match_word(given, STRENGTH_WORDS, "objection_strength")
        if self.verdict != "agree" and not self.objections:
            raise ReplyError(f"a '{self.verdict}' verdict needs at least one entry in 'objections'")
        return self


class ResponseReply(ChallengeReply):
    """The proponent's answer to one objection (`objection` is its id, "O2"); `ConfrontationReply` reads
    the judge's entries into this shape."""

    objection: Text = reply_field(default="")
    decision: ObjectionDecision = reply_field(default="REJECT")
    reason: Text = reply_field(example="{why}", default="")


class ConfrontationReply(ChallengeReply):
    responses: Annotated[list[ResponseReply], items()] = reply_field(
        "one entry per objection", default_factory=list, validate_default=True
    )
    position: Annotated[LongText, Required] = reply_field("the whole position as it now stands")
    confidence: PositionConfidence | None = reply_field(default=None)
    reasoning: LongText = reply_field("what changed and why, or why nothing did", default="")

    @field_validator("responses", mode="before")
    @classmethod
    def _responses(cls, value: Any, info: ValidationInfo) -> list[dict[str, str]]:
        """One answer per objection in play (`objection_ids` in the context), in their order; an answer
        without an id answers the objection listed at its place, one to an objection not asked is ignored."""
        ids: Sequence[str] = (info.context or {}).get("objection_ids", ())
        answers: dict[str, dict[str, str]] = {}
        for index, raw in enumerate(as_list(value)):
            if not isinstance(raw, dict):
                raise ReplyError("each entry of 'responses' must be a mapping with objection, decision and reason")
            item = {str(k).lower(): v for k, v in raw.items()}
            oid = _response_id(item, index, ids)
            if oid not in ids:
                continue  # an answer to something that was not asked is ignored, not an error
            decision = match_word(item.get("decision"), DECISION_WORDS, f"the decision on {oid}")
            answers[oid] = {
                "objection": oid,
                "decision": decision,
                "reason": as_text(item.get("reason") or item.get("reasoning")),
            }
        missing = [oid for oid in ids if oid not in answers]
        if missing:
            raise ReplyError(
                "'responses' must answer every objection with ACCEPT, PARTIAL or REJECT: missing " + ", ".join(missing)
            )
        return [answers[oid] for oid in ids]

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> Any:
        return None if value in (None, "") else match_word(value, CONFIDENCE, "confidence")


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


class RebuttalReply(ChallengeReply):
    example_format = "json"
    quote_words = True

    response: RebuttalResponse = reply_field()
    reasoning: Text = reply_field(example="{why}", default="")
    objections: Entries = reply_field(
        "objections that still stand or are new; empty if you accept",
        example="{objections that still stand or are new, one per entry; empty if you accept}",
        default_factory=list,
    )
    quotes: Entries = reply_field(_QUOTES, example=_QUOTE_EXAMPLE, default_factory=list)

    @field_validator("response", mode="before")
    @classmethod
    def _response(cls, value: Any) -> Any:
        return match_word(value, REBUTTAL_WORDS, "response")


class AssumptionsReply(ChallengeReply):
    why_disagree: Annotated[Text, Required] = reply_field(example="{...}")
    what_would_change_my_mind: Annotated[Text, Required] = reply_field(example="{...}")
    assumptions: Entries = reply_field("one assumption per entry", example="{...}", default_factory=list)
    # asked of the proponent only
    core_disagreement: Text = reply_field(
        "one sentence naming the heart of the disagreement", example="{...}", default=""
    )


PHASES: dict[str, type[ChallengeReply]] = {
    "opening": OpeningReply,
    "challenge": VerdictReply,
    "confront": ConfrontationReply,
    "rebuttal": RebuttalReply,
    "assumptions": AssumptionsReply,
}


def reply_model(phase: str, *, objection_ids: Sequence[str] = (), proponent: bool = False) -> type[ChallengeReply]:
    """The reply of one phase, by the name of its prompt template, narrowed to the debate: the confrontation
    answers exactly the objections in play; only the proponent names the core disagreement."""
    if phase not in PHASES:
        raise ValueError(f"unknown challenge phase {phase!r}")
    if phase == "confront":
        return _confrontation(tuple(objection_ids))
    if phase == "assumptions" and not proponent:
        return specialize(PHASES["assumptions"], "ChallengerAssumptions", without=("core_disagreement",))
    return PHASES[phase]


@functools.lru_cache(maxsize=64)
def _confrontation(objection_ids: tuple[str, ...]) -> type[ChallengeReply]:
    """The confrontation answering exactly `objection_ids` (made once per set of ids: each call parses one)."""
    item = specialize(ResponseReply, "ResponseTo", objection=one_of(objection_ids))
    bound = items(max(len(objection_ids), 1), min_items=len(objection_ids))
    return specialize(ConfrontationReply, "ConfrontationOf", responses=Annotated[list[item], bound])  # type: ignore[valid-type]


def challenge_reply_schema(phase: str, *, objection_ids: Sequence[str] = (), proponent: bool = False) -> Schema:
    """The reply of one phase of the position challenge, by the name of its prompt template."""
    return reply_schema(reply_model(phase, objection_ids=objection_ids, proponent=proponent))


def reply_example_for(
    phase: str, *, objection_ids: Sequence[str] = (), proponent: bool = False, version: int = 0
) -> str:
    """The template a phase's prompt shows: the confrontation lists the objections to answer and names the
    position's next version."""
    model = reply_model(phase, objection_ids=objection_ids, proponent=proponent)
    values: dict[str, Any] = {}
    if phase == "confront":
        values = {
            "responses": [{"objection": oid} for oid in objection_ids],
            "position": f"{{position v{version + 1}, complete}}",
        }
    return reply_example(model, values)


def assumptions_schema(*, proponent: bool) -> Schema:
    """The closing statement's schema: the proponent's also names the core disagreement."""
    return challenge_reply_schema("assumptions", proponent=proponent)
