"""Judge replies of the scored evaluation -> `ScoredPosition`.

The keys it reads are those the declared replies (`replies.py`) name, with their legacy aliases, and a
list's entries are read through the declared entry models. Accepts seed 000's templates for each round as
they stand (`overall_score` in round 1, `new_score` in round 2, `final_score` in round 3) and seed 003's
per-criterion scores. Validation is strict: every score on the 1-5 scale, every criterion scored in round
1, every open CRITICAL finding answered in later rounds.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from moot.grounding import Source, ground
from moot.parsing.extract import as_list, as_score, extract_mapping, preview
from moot.parsing.replies import field_keys
from moot.protocol import ReplyError, ReplyModel, as_bool, as_text, reply_parser
from moot.protocols.evaluate.criteria import Criterion, criterion_key
from moot.protocols.evaluate.follow_up import parse_answers
from moot.protocols.evaluate.locations import location
from moot.protocols.evaluate.replies import (
    OVERALL,
    PHASES,
    STATEMENT,
    AgreementEntry,
    CheckEntry,
    ClaimEntry,
    DisputeEntry,
    RaisedEntry,
)
from moot.protocols.evaluate.rules import weighted_overall
from moot.protocols.evaluate.schemas import (
    RESPONSES,
    CriticalFinding,
    CriticalResponse,
    Earlier,
    Exchange,
    KeyClaim,
    RaisedFinding,
    ScoredPosition,
)


def reading_keys(field: str) -> tuple[str, ...]:
    """The keys the parser reads for `field` (a field's name, or a role: OVERALL, STATEMENT), in any round:
    judges mix the rounds' templates, so a reply is read by every round's keys, the last round's first,
    each field's name before its legacy aliases (the first key holding a value wins). A name no declared
    reply field has (a misspelt one) is an error, never a field read as empty."""
    keys = _reading_keys(field, (PHASES["final"], PHASES["rebuttal"], PHASES["round_1"]))
    if not keys:
        raise KeyError(f"{field!r} names no field of evaluate's declared replies")
    return keys


@functools.cache
def _reading_keys(field: str, models: tuple[type[ReplyModel], ...]) -> tuple[str, ...]:
    keys = [
        k
        for m in models
        for name, info in m.model_fields.items()
        if field in (name, *info.metadata)
        for k in field_keys(m, name)
    ]
    return tuple(dict.fromkeys(keys))


def _first(data: dict[str, Any], keys: Sequence[str]) -> Any:
    for k in keys:
        if k in data and data[k] not in (None, ""):
            return data[k]
    return None


def _either(data: dict[str, Any], keys: Sequence[str]) -> Any:
    """`data[k1] or data[k2] or ...`: the first value that is not empty, else the last key's."""
    value = None
    for k in keys:
        value = data.get(k)
        if value:
            break
    return value


def _field(data: dict[str, Any], name: str) -> Any:
    """A field of the declared replies, under its name or a legacy alias (`replies.reading_keys`)."""
    return _either(data, reading_keys(name))


def _dimension_scores(data: dict[str, Any], criteria: Sequence[Criterion]) -> dict[str, float]:
    raw = _first(data, reading_keys("dimension_scores"))
    if raw is None:
        return {}
    if isinstance(raw, list):  # [{criterion: x, score: y}, ...]
        pairs = {}
        for item in raw:
            if isinstance(item, dict):
                name = item.get("criterion") or item.get("name") or item.get("dimension")
                if name is not None:
                    pairs[str(name)] = item.get("score", item.get("value"))
        raw = pairs
    if not isinstance(raw, dict):
        raise ReplyError("dimension_scores must be a mapping of criterion to score")
    known = {c.key for c in criteria}
    scores: dict[str, float] = {}
    for name, value in raw.items():
        key = criterion_key(str(name))
        if key not in known:
            continue
        if isinstance(value, dict):
            value = value.get("score", value.get("value"))
        scores[key] = as_score(value, f"the score for '{key}'")
    return scores


def _quoted(quote: str, place: dict[str, Any], shown: Sequence[Source]) -> dict[str, Any]:
    """A finding's quote, its place, and whether the quote is found there (`moot.grounding`)."""
    return {"quote": quote, **place, **ground(quote, shown, file=place["file"], line=place["line"]).fields()}


def _raised(data: dict[str, Any], shown: Sequence[Source]) -> list[RaisedFinding]:
    found = []
    for item in as_list(_field(data, "critical_findings")):
        if isinstance(item, str):
            if item.strip():
                found.append(RaisedFinding(finding=item.strip(), **_quoted("", location({}), shown)))
            continue
        if not isinstance(item, dict):
            continue
        entry = RaisedEntry.model_validate(item)
        text = entry.finding
        if str(item.get("severity") or "CRITICAL").upper() == "CRITICAL" and text and not text.startswith("{"):
            quoted = _quoted(entry.quote, location(item), shown)
            found.append(RaisedFinding(finding=text, evidence=entry.evidence, **quoted))
    return found


def _confirmations(data: dict[str, Any], shown: Sequence[Source]) -> dict[str, str]:
    """Finding id -> the judge's own quote, where an answer gives one (`C1: {response: accept, quote: ...}`)
    and it is found in what was shown: a confirmation that grounds a finding its raiser did not."""
    raw = _field(data, "critical_responses")
    out: dict[str, str] = {}
    if isinstance(raw, dict):
        for fid, answer in raw.items():
            if isinstance(answer, dict) and RESPONSES.read(str(answer.get("response", ""))) == "accept":
                quote = as_text(answer.get("quote"))
                if ground(quote, shown).grounded:
                    out[str(fid).strip().upper()] = quote
    return out


_FINDING_ID = re.compile(r"\b(C\d+)\b")
_JUDGE_LETTER = re.compile(r"\bjudge[\s-]+([A-Z])\b", re.IGNORECASE)
_JUDGE_SEAT = re.compile(r"\b(judge-\d+)\b", re.IGNORECASE)


def _moved_by(data: dict[str, Any]) -> list[str]:
    """What a score change names as its cause: finding ids (`C2`) and judges' letters (`Judge B` -> `B`),
    from `change_reason` (or, in the final round, whom each concession names)."""
    texts = [as_text(_field(data, "change_reason"))]
    texts += [as_text(c.get("convinced_by")) for c in as_list(data.get("concessions_made")) if isinstance(c, dict)]
    text = "\n".join(texts)
    refs = [m.upper() for m in _FINDING_ID.findall(text)] + [m.upper() for m in _JUDGE_LETTER.findall(text)]
    refs += [m.lower() for m in _JUDGE_SEAT.findall(text)]  # a seat id, when reports are not anonymous
    return list(dict.fromkeys(refs))


def _responses(data: dict[str, Any]) -> dict[str, CriticalResponse]:
    raw = _field(data, "critical_responses")
    pairs: list[tuple[Any, Any]] = []
    if isinstance(raw, dict):
        pairs = [(k, v.get("response") if isinstance(v, dict) else v) for k, v in raw.items()]
    else:
        for item in as_list(raw):
            if isinstance(item, dict):
                pairs.append((item.get("id") or item.get("finding_id"), item.get("response")))
    out: dict[str, CriticalResponse] = {}
    for fid, resp in pairs:
        word = RESPONSES.read(str(resp))
        if fid is None or word is None:
            allowed = ", ".join(RESPONSES.words)
            raise ReplyError(f"critical_responses: {preview(resp)} for {preview(fid)} is not one of {allowed}")
        out[str(fid).strip().upper()] = word
    return out


def _exchanges(data: dict[str, Any], key: str) -> list[Exchange]:
    out = []
    for item in as_list(_field(data, key)):
        if isinstance(item, dict):
            entry = AgreementEntry.model_validate(item)
            rest = {k: v for k, v in item.items() if k not in ("with_judge", "on_point")}
            out.append(Exchange(with_judge=entry.with_judge, on_point=entry.on_point, detail=as_text(rest)))
        elif item:
            out.append(Exchange(on_point=as_text(item)))
    return out


def _unresolved(data: dict[str, Any]) -> list[str]:
    out = []
    for key in ("unresolved_disputes", "unresolved_disagreements"):
        for item in as_list(_field(data, key)):
            if isinstance(item, dict):
                entry = DisputeEntry.model_validate(item)
                topic, mine, theirs = entry.topic, entry.my_view, entry.opposing_view
                out.append(f"{topic} (mine: {mine}; opposing: {theirs})" if mine or theirs else topic)
            elif item:
                out.append(as_text(item))
    return [u for u in out if u]


@reply_parser
def parse_scored_reply(
    text: str,
    *,
    judge: str,
    round_no: int,
    criteria: Sequence[Criterion],
    previous: ScoredPosition | None = None,
    must_answer: Sequence[CriticalFinding] = (),
    earlier: Earlier | None = None,
    shown: Sequence[Source] = (),
    ask_for_quotes: bool = False,
) -> ScoredPosition:
    """Validate one reply. Raises ReplyError with a message meant for the judge.

    `previous` is the judge's position from the last round: missing dimension scores (and an unchanged
    overall score) carry over from it. `must_answer` are the open CRITICAL findings this judge must
    accept, reject or (for its own) withdraw. `shown` is what the judges were shown, every quote's check;
    with `ask_for_quotes`, a CRITICAL finding whose quote is not found there is sent back once for a
    verbatim one (the reply is kept as it stands if the judge does not give one: `ReplyError.usable`).
    """
    data = extract_mapping(text, required_any=(*reading_keys(OVERALL), *reading_keys("dimension_scores")))
    dims, carried = _all_dimensions(data, criteria, previous)
    overall, stated, changed = _overall(data, dims, criteria, previous)
    responses = _checked_responses(data, must_answer, judge)
    claims, verification = _claims(data, shown), _verification(data)

    position = ScoredPosition(
        judge=judge,
        round=round_no,
        overall_score=overall,
        stated_overall=stated,
        dimension_scores=dims,
        carried_over=carried,
        statement=as_text(_first(data, reading_keys(STATEMENT))),
        key_claims=[c for c in claims if c.claim],
        raised=_raised(data, shown),
        critical_responses=responses,
        confirmations=_confirmations(data, shown),
        moved_by=_moved_by(data),
        agreements=_exchanges(data, "agreements") + _exchanges(data, "concessions_made"),
        disagreements=_exchanges(data, "disagreements") + _exchanges(data, "key_points_maintained"),
        unresolved=_unresolved(data),
        score_changed=changed,
        change_reason=as_text(_field(data, "change_reason")),
        accepts_consensus=as_bool(_first(data, reading_keys("accepts_consensus"))),
        verification=verification,
        earlier_answers=parse_answers(data, earlier),
    )
    ungrounded = [f for f in position.raised if not f.grounded]
    if ask_for_quotes and ungrounded:
        said = "; ".join(f"{preview(f.finding)} ({f.ungrounded_reason})" for f in ungrounded)
        raise ReplyError(
            "a CRITICAL finding blocks only with a verbatim quote of the artifact in its `quote` (and, with a "
            f"`location`, found at that line); give the exact text it rests on, copied, or drop the finding: {said}",
            usable=position,
        )
    return position


def _all_dimensions(
    data: dict[str, Any], criteria: Sequence[Criterion], previous: ScoredPosition | None
) -> tuple[dict[str, float], list[str]]:
    """Every criterion's score, and which ones carried over unchanged from the judge's last round."""
    dims = _dimension_scores(data, criteria)
    missing = [c.key for c in criteria if c.key not in dims]
    if not missing:
        return dims, []
    if previous is None:
        raise ReplyError("dimension_scores is missing a score for: " + ", ".join(missing))
    for key in missing:
        dims[key] = previous.dimension_scores[key]
    return dims, missing


def _overall(
    data: dict[str, Any], dims: dict[str, float], criteria: Sequence[Criterion], previous: ScoredPosition | None
) -> tuple[float, bool, bool | None]:
    """The stated overall score; else the last round's when the judge says it did not change; else the
    weighted mean of the dimension scores. With whether it was stated, and the judge's `score_changed`."""
    raw = _first(data, reading_keys(OVERALL))
    changed = as_bool(_field(data, "score_changed"))
    if raw is not None:
        return as_score(raw, "the overall score"), True, changed
    if previous is not None and changed is False:
        return previous.overall_score, False, changed
    return weighted_overall(dims, criteria), False, changed


def _checked_responses(
    data: dict[str, Any], must_answer: Sequence[CriticalFinding], judge: str
) -> dict[str, CriticalResponse]:
    responses = _responses(data)
    unanswered = [f.id for f in must_answer if f.id not in responses]
    if unanswered:
        raise ReplyError(
            "critical_responses must answer every open CRITICAL finding (accept or reject; withdraw your "
            "own): missing " + ", ".join(unanswered)
        )
    for f in must_answer:
        if responses[f.id] == "withdraw" and f.raised_by != judge:
            raise ReplyError(f"only the judge who raised {f.id} can withdraw it: accept or reject it")
    return responses


def _claims(data: dict[str, Any], shown: Sequence[Source]) -> list[KeyClaim]:
    claims = []
    for item in as_list(_field(data, "key_claims")):
        if isinstance(item, dict):
            entry = ClaimEntry.model_validate(item)
            confidence = entry.confidence.upper()
            quoted = _quoted(entry.quote, location(item), shown)
            claims.append(KeyClaim(claim=entry.claim, evidence=entry.evidence, confidence=confidence, **quoted))
        elif item:
            claims.append(KeyClaim(claim=as_text(item), **_quoted("", location({}), shown)))
    return claims


def _verification(data: dict[str, Any]) -> list[str]:
    out = []
    for item in as_list(_field(data, "verification")):
        if isinstance(item, dict):
            entry = CheckEntry.model_validate(item)
            q, a = entry.question, entry.answer
            out.append(f"{q} -> {a}" if a else q)
        elif item:
            out.append(as_text(item))
    return out
