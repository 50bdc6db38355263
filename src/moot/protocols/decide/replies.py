"""A judge's reply in the option-choice debate, declared once: the schema sent, the prompt's template and
the parser's validation all come from `RecommendationReply` (see `moot.parsing.replies`).

One declaration holds every key of every round, in the order the prompts show them; a round leaves out
the keys it does not ask for (round 1: no challenges, round 2: no assessment), and a debate narrows the
option ids and the judges' names to its own (`reply_model`). The parser's leniency lives here too, as
validators reading the debate from the validation context (`options`, `others`): "Option A" or an
option's label is read as its id, a challenge may name its judge in a sentence.

Reading a reply (`parse_stance_reply`, into a `StanceReply`): YAML or JSON (fenced or not, prose around it
allowed) with at least `recommendation: <option id>` (`recommended_option` is accepted too). Option ids are
matched without regard to case, and "Option A" or the option's label are read as "A". In round 2 and later the
seed's rules are enforced here, so that a reply breaking them is sent back once (by `moot.engine.ask`) with the
reason: the judge must challenge at least one other judge (`challenges`, each naming the judge); a judge that
changes its recommendation must say exactly what convinced it (`change_reason`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import ValidationInfo, field_validator

from moot.grounding import Source, ground
from moot.parsing.extract import as_list, extract_mapping, preview
from moot.parsing.replies import Bound, field_keys, validate_reply
from moot.protocol import (
    Flag,
    LongText,
    ReplyError,
    ReplyModel,
    Text,
    as_text,
    items,
    one_of,
    reply_example,
    reply_field,
    reply_parser,
    reply_schema,
    specialize,
    word,
)
from moot.protocols.decide.schemas import CounterArgument, DecisionOption, NamedRisk, StanceReply
from moot.schemas.reply_bounds import Schema
from moot.schemas.reply_schemas import CONFIDENCE, SHORT

_PREFIX = re.compile(r"^\s*(?:option|opt\.?)\s*[:#-]?\s*", re.IGNORECASE)
_TARGET_KEYS = ("judge", "to", "target", "against", "with_judge", "challenged_judge")
_ARGUMENT_KEYS = ("counter_argument", "counterargument", "argument", "challenge", "point", "text", "rebuttal")
_EMPTY: tuple[Any, ...] = (None, "", [], {})
# a text the validators below have already read into prose (`as_text`): kept exactly as they made it
Said = Annotated[str, Bound(max_length=SHORT)]
_RATIONALE_KEYS = ("reasoning", "position", "argument", "summary")


class CounterArgumentReply(ReplyModel):
    """One challenge of round 2: the judge it answers, and the weakness of that judge's reasoning."""

    judge: Text = reply_field("the judge this answers")
    counter_argument: Said = reply_field(example="{the specific weakness of its reasoning, from your stance}")


class RiskEntry(ReplyModel):
    """A risk the judge names for an option, with the words of the question, options or context it rests on
    (checked by moot, `moot.grounding`: a risk whose quote is not found is reported as not grounded)."""

    option: Text = reply_field(example="{option id}", default="")
    risk: Text = reply_field(example="{the risk}", default="")
    quote: Text = reply_field(example="{the exact words of the question, options or context it rests on}", default="")


class OptionTexts(ReplyModel):
    """What each option means from the judge's stance, keyed by option id (`reply_model` adds the ids)."""

    quote_keys = True


class RecommendationReply(ReplyModel):
    """Every key a judge's reply may give, in every round, in the order the prompts show them."""

    challenges: Annotated[list[CounterArgumentReply], items(min_items=1)] = reply_field(
        "at least one specific counter-argument, each naming the judge it answers",
        aliases=("counter_arguments", "counterarguments", "challenge"),
        default_factory=list,
        empty="",
    )
    recommendation: Text | None = reply_field(
        "exactly one option id", aliases=("recommended_option", "recommend", "choice"), default=None
    )
    changed: Flag = reply_field(default=None)
    # never empty in the enforced shape: a judge that changed its recommendation must say why, and a grammar
    # cannot tie one field to another
    change_reason: Annotated[Text, Bound(min_length=1)] = reply_field(
        "only if you changed: exactly what convinced you, and whose argument; else empty",
        example="{only if you changed: exactly what convinced you, and whose argument it was}",
        aliases=("what_convinced_me", "changed_because", "reason_for_change"),
        block=True,
        default="",
    )
    confidence: Annotated[Text, word(*CONFIDENCE)] = reply_field(default="")
    perspective: Text = reply_field(
        "one sentence: why this option, from your stance", aliases=("one_line", "summary", "headline"), default=""
    )
    rationale: LongText = reply_field(
        "your reasoning, with the evidence and assumptions it rests on",
        aliases=_RATIONALE_KEYS,
        block=True,
        default="",
    )
    risks: Annotated[list[RiskEntry], items(2)] = reply_field(
        "each risk you name for an option, with a verbatim quote of what it rests on", default_factory=list
    )
    assessment: OptionTexts = reply_field(
        "what each option means from your stance",
        aliases=("assessments", "option_assessments", "options_assessment", "evaluation"),
        default_factory=OptionTexts,
    )

    @field_validator("recommendation", mode="before")
    @classmethod
    def _option(cls, value: Any, info: ValidationInfo) -> Any:
        """The option id the judge named ("a", "Option A", the label), or a ReplyError saying which ids there are."""
        options: Sequence[DecisionOption] = (info.context or {}).get("options", ())
        if value in _EMPTY or not options:
            return None if value in _EMPTY else as_text(value)
        option = match_option(value, options)
        if option is None:
            shown = " ".join(as_text(value).split())[:60]
            ids = ", ".join(o.id for o in options)
            raise ReplyError(f"`recommendation: {shown}` is not one of the option ids ({ids})")
        return option

    @field_validator("challenges", mode="before")
    @classmethod
    def _challenges(cls, value: Any, info: ValidationInfo) -> list[dict[str, str]]:
        """Each challenge that names one of the other judges and says something; the rest are dropped."""
        return challenges_of(value, (info.context or {}).get("others", ()))

    @field_validator("assessment", mode="before")
    @classmethod
    def _assessment(cls, value: Any, info: ValidationInfo) -> dict[str, str]:
        """A mapping or a list of `{option, ...}` entries, keyed by the option ids they name."""
        return assessments_of(value, (info.context or {}).get("options", ()))

    def position(self, rules: ReplyRules) -> StanceReply:
        """The judge's position in this round, made from the validated reply (the record the debate keeps),
        or a ReplyError, phrased for the judge, when it breaks one of the round's rules."""
        ids = [o.id for o in rules.options]
        option = self.recommendation
        if option is None:
            raise ReplyError(
                f"the reply has no `recommendation` (it must be exactly one of the option ids: {', '.join(ids)})"
            )
        challenges = [CounterArgument(judge=c.judge, argument=c.counter_argument) for c in self.challenges]
        if rules.round_no > 1 and rules.require_challenge and rules.others and not challenges:
            raise ReplyError(
                "the reply challenges nobody: `challenges` must hold at least one specific counter-argument, "
                "each naming the judge it answers (" + ", ".join(rules.others) + ")"
            )
        changed_from = rules.previous if rules.previous is not None and rules.previous != option else None
        if changed_from is not None and rules.require_change_reason and not self.change_reason:
            raise ReplyError(
                f"you changed your recommendation from {changed_from} to {option} without `change_reason`: "
                "say exactly what convinced you, or keep your recommendation"
            )
        return StanceReply(
            judge=rules.judge,
            round=rules.round_no,
            recommendation=option,
            confidence=self.confidence,
            rationale=self.rationale,
            perspective=self.perspective or _first_sentence(self.rationale),
            assessments=self.assessment.model_dump(exclude_unset=True),
            challenges=challenges if rules.round_no > 1 else [],
            changed_from=changed_from,
            change_reason=self.change_reason if changed_from is not None else "",
            risks=[
                NamedRisk(option=r.option, risk=r.risk, quote=r.quote, **ground(r.quote, rules.shown).fields())
                for r in self.risks
                if r.risk
            ],
        )


@functools.lru_cache(maxsize=64)
def reply_model(option_ids: tuple[str, ...], round_no: int, others: tuple[str, ...]) -> type[RecommendationReply]:
    """The reply of one round of one debate: its option ids as the recommendation's enum and the assessment's
    keys, and from round 2 on the judges it challenges as the challenges' enum."""
    recommendation = one_of(option_ids) | None  # None: no recommendation given (the parser says so)
    per_option: dict[str, Any] = {o: (Said, _assessed()) for o in option_ids}
    texts = specialize(OptionTexts, "OptionTextsOf", **per_option)
    if round_no <= 1:
        return specialize(
            RecommendationReply,
            "FirstRoundReply",
            without=("challenges", "changed", "change_reason"),
            recommendation=recommendation,
            assessment=texts,
        )
    item = specialize(CounterArgumentReply, "CounterArgumentOf", judge=one_of(others))
    return specialize(
        RecommendationReply,
        "LaterRoundReply",
        without=("assessment",),  # not asked for after round 1, but still read when given
        assessment=texts,
        challenges=Annotated[list[item], items(min_items=1 if others else 0)],  # type: ignore[valid-type]
        recommendation=recommendation,
        rationale=(
            LongText,
            reply_field("your position after reading the others", aliases=_RATIONALE_KEYS, block=True, default=""),
        ),
    )


def _assessed() -> Any:
    return reply_field(default="", example="{what this option means from your stance}")


def decide_reply_schema(option_ids: Sequence[str], *, round_no: int, others: Sequence[str] = ()) -> Schema:
    """A judge's reply in the option-choice debate: `recommendation` is one of `option_ids`.

    From round 2 on, `challenges` name the judges in `others` (each challenge answers one of them).
    """
    return reply_schema(reply_model(tuple(option_ids), round_no, tuple(others)))


def decide_reply_example(
    option_ids: Sequence[str], *, round_no: int, seat: str, stance: str, others: Sequence[str]
) -> str:
    """The template the round's prompt shows (round 1 names no judge: the prompt says who it is later)."""
    model = reply_model(tuple(option_ids), round_no, tuple(others))
    values: dict[str, Any] = {"round": round_no, "recommendation": "{option id: one of " + ", ".join(option_ids) + "}"}
    if round_no > 1:
        values |= {"judge": seat, "stance": stance, "challenges": [{"judge": o} for o in others]}
    return reply_example(model, values)


def match_option(value: Any, options: Sequence[DecisionOption]) -> str | None:
    """The option id `value` names, or None. Accepts "A", "a", "Option A", "A) Online only", the label."""
    if isinstance(value, dict):
        value = value.get("id") or value.get("option")
    if value is None or isinstance(value, bool | list):
        return None
    text = str(value).strip().strip("\"'`*[]()").strip()
    if not text:
        return None
    by_id = {o.id.casefold(): o.id for o in options}
    candidates = [text, _PREFIX.sub("", text)]
    for c in candidates:
        if c.casefold() in by_id:
            return by_id[c.casefold()]
    for c in candidates:
        head = re.split(r"[\s:)\].,-]+", c, maxsplit=1)[0]
        if head.casefold() in by_id:
            return by_id[head.casefold()]
    by_label = {o.label.casefold(): o.id for o in options if o.label}
    return by_label.get(text.casefold())


def assessments_of(raw: Any, options: Sequence[DecisionOption]) -> dict[str, str]:
    out: dict[str, str] = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            oid = match_option(k, options)
            if oid:
                out[oid] = as_text(v)
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                oid = match_option(item.get("option") or item.get("id"), options)
                if oid:
                    rest = {k: v for k, v in item.items() if k not in ("option", "id")}
                    out[oid] = as_text(rest)
    return out


def _target(value: Any, others: Sequence[str]) -> str | None:
    """Which of `others` a challenge names ("value", "Value Judge", "the value judge's ROI claim")."""
    if value is None:
        return None
    text = str(value).casefold()
    for judge in others:
        if text.strip() == judge.casefold():
            return judge
    for judge in others:
        if re.search(rf"(?<![\w-]){re.escape(judge.casefold())}(?![\w-])", text):
            return judge
    return None


def _first(data: dict[str, Any], keys: Sequence[str]) -> Any:
    return next((data[k] for k in keys if k in data and data[k] not in _EMPTY), None)


def challenges_of(raw: Any, others: Sequence[str]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    if isinstance(raw, dict):  # {value: "...", effort: "..."}
        entries: list[Any] = [{"judge": k, "argument": v} for k, v in raw.items()]
    else:
        entries = as_list(raw)
    for item in entries:
        if isinstance(item, dict):
            data = {str(k).lower(): v for k, v in item.items()}
            judge = _target(_first(data, _TARGET_KEYS), others)
            argument = as_text(_first(data, _ARGUMENT_KEYS))
            if not argument:
                argument = as_text({k: v for k, v in data.items() if k not in _TARGET_KEYS})
        else:
            argument = as_text(item)
            judge = _target(argument, others)
        if judge and argument:
            out.append({"judge": judge, "counter_argument": argument})
    return out


@dataclass(frozen=True)
class ReplyRules:
    """What a reply in a given round must satisfy."""

    judge: str
    round_no: int
    options: Sequence[DecisionOption]
    previous: str | None = None  # the judge's recommendation in the round before (None: it had none)
    others: Sequence[str] = ()  # the judges it must challenge (any one of them), from round 2 on
    require_challenge: bool = False
    require_change_reason: bool = True
    shown: Sequence[Source] = ()  # the question, the options and the context: what a risk's quote is checked against


@reply_parser
def parse_stance_reply(text: str, rules: ReplyRules) -> StanceReply:
    """Validate one reply with the round's `RecommendationReply`. Raises ReplyError, phrased for the judge,
    when it breaks a rule."""
    ids = [o.id for o in rules.options]
    model = reply_model(tuple(ids), rules.round_no, tuple(rules.others))
    data = extract_mapping(text, required_any=field_keys(model, "recommendation"))
    reply = validate_reply(model, data, context={"options": rules.options, "others": rules.others})
    return _quotes_checked(reply.position(rules), asked=bool(rules.shown))


def _quotes_checked(stance: StanceReply, *, asked: bool) -> StanceReply:
    """The reply, or a ReplyError that sends it back once when a risk it names has no verbatim quote of the
    question, options or context; kept as it stands if the judge gives none (`usable`): the risk is then
    reported as not grounded, and the other judges read that it is."""
    ungrounded = [r for r in stance.risks if not r.grounded]
    if not asked or not ungrounded:
        return stance
    said = "; ".join(f"{r.option}: {preview(r.risk)} ({r.ungrounded_reason})" for r in ungrounded)
    raise ReplyError(
        "a risk counts only with a verbatim quote of the question, the options or the context in its `quote`: "
        f"give the exact words it rests on, copied, or drop the risk: {said}",
        usable=stance,
    )


def _first_sentence(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    m = re.match(r"(.+?[.!?])(\s|$)", line)
    sentence = m.group(1) if m else line
    return sentence if len(sentence) <= 200 else sentence[:197].rstrip() + "..."
