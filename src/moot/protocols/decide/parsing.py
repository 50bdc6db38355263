"""Judge replies of the option-choice debate -> `StanceReply`.

A reply is YAML or JSON (fenced or not, prose around it allowed) with at least `recommendation: <option
id>` (`recommended_option` is accepted too). Option ids are matched without regard to case, and "Option
A" or the option's label are read as "A". In round 2 and later the seed's rules are enforced here, so that
a reply breaking them is sent back once (by `moot.engine.ask`) with the reason:
- the judge must challenge at least one other judge (`challenges`, each naming the judge);
- a judge that changes its recommendation must say exactly what convinced it (`change_reason`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from moot.parsing.extract import ReplyError, as_list, as_text, extract_mapping, reply_parser
from moot.protocols.decide.schemas import CounterArgument, DecisionOption, StanceReply

_RECOMMENDATION_KEYS = ("recommendation", "recommended_option", "recommend", "choice")
_REASON_KEYS = ("change_reason", "what_convinced_me", "changed_because", "reason_for_change")
_ASSESSMENT_KEYS = ("assessment", "assessments", "option_assessments", "options_assessment", "evaluation")
_CHALLENGE_KEYS = ("challenges", "counter_arguments", "counterarguments", "challenge")
_TARGET_KEYS = ("judge", "to", "target", "against", "with_judge", "challenged_judge")
_ARGUMENT_KEYS = ("counter_argument", "counterargument", "argument", "challenge", "point", "text", "rebuttal")
_PREFIX = re.compile(r"^\s*(?:option|opt\.?)\s*[:#-]?\s*", re.IGNORECASE)


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


def _first(data: dict[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        if k in data and data[k] not in (None, "", [], {}):
            return data[k]
    return None


def _assessments(raw: Any, options: Sequence[DecisionOption]) -> dict[str, str]:
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


def _challenges(raw: Any, others: Sequence[str]) -> list[CounterArgument]:
    out: list[CounterArgument] = []
    if isinstance(raw, dict):  # {value: "...", effort: "..."}
        items: list[Any] = [{"judge": k, "argument": v} for k, v in raw.items()]
    else:
        items = as_list(raw)
    for item in items:
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
            out.append(CounterArgument(judge=judge, argument=argument))
    return out


@reply_parser
def parse_stance_reply(text: str, rules: ReplyRules) -> StanceReply:
    """Validate one reply. Raises ReplyError, phrased for the judge, when it breaks a rule."""
    data = extract_mapping(text, required_any=_RECOMMENDATION_KEYS)
    ids = ", ".join(o.id for o in rules.options)
    raw = _first(data, _RECOMMENDATION_KEYS)
    if raw is None:
        raise ReplyError(f"the reply has no `recommendation` (it must be exactly one of the option ids: {ids})")
    option = match_option(raw, rules.options)
    if option is None:
        shown = " ".join(as_text(raw).split())[:60]
        raise ReplyError(f"`recommendation: {shown}` is not one of the option ids ({ids})")
    challenges: list[CounterArgument] = []
    if rules.round_no > 1:
        challenges = _challenges(_first(data, _CHALLENGE_KEYS), rules.others)
        if rules.require_challenge and rules.others and not challenges:
            raise ReplyError(
                "the reply challenges nobody: `challenges` must hold at least one specific counter-argument, "
                "each naming the judge it answers (" + ", ".join(rules.others) + ")"
            )
    reason = as_text(_first(data, _REASON_KEYS))
    changed_from = rules.previous if rules.previous is not None and rules.previous != option else None
    if changed_from is not None and rules.require_change_reason and not reason:
        raise ReplyError(
            f"you changed your recommendation from {changed_from} to {option} without `change_reason`: "
            "say exactly what convinced you, or keep your recommendation"
        )
    rationale = as_text(_first(data, ("rationale", "reasoning", "position", "argument", "summary")))
    perspective = as_text(_first(data, ("perspective", "one_line", "summary", "headline")))
    return StanceReply(
        judge=rules.judge,
        round=rules.round_no,
        recommendation=option,
        confidence=as_text(data.get("confidence")),
        rationale=rationale,
        perspective=perspective or _first_sentence(rationale),
        assessments=_assessments(_first(data, _ASSESSMENT_KEYS), rules.options),
        challenges=challenges,
        changed_from=changed_from,
        change_reason=reason if changed_from is not None else "",
    )


def _first_sentence(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    m = re.match(r"(.+?[.!?])(\s|$)", line)
    sentence = m.group(1) if m else line
    return sentence if len(sentence) <= 200 else sentence[:197].rstrip() + "..."
