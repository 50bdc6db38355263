"""A judge's reply of the scored evaluation kept as its model: `ScoredReading`, validated once from the reply's
mapping, makes the judge's `ScoredPosition` itself (`ScoredReading.position`).

Judges mix the rounds' templates (a rebuttal may carry round 1's `overall_score`, a final round the rebuttal's
`new_score`), so one reading holds every field any round declares, each read under every key the declared
replies give it (`reading_keys`: the last round's first, a field's name before its legacy aliases, the first
key holding a value winning). Its fields are named after the declared replies' fields (or a role: OVERALL,
STATEMENT): a name no declared reply has is an error when a reply is read, never a field read as empty, and
the parser reads the reading's typed attributes, never a key by a string.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Annotated, Any, ClassVar, NotRequired, TypedDict

from pydantic import Field, model_validator
from pydantic.fields import FieldInfo

from moot.grounding import Source, ground
from moot.parsing.extract import as_list, as_score, preview
from moot.parsing.replies import Listed, field_keys
from moot.protocol import Flag, LongText, ReplyError, ReplyModel, Text, as_text, reply_field
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
    ConcessionEntry,
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

_ROLES = (OVERALL, STATEMENT)
_EMPTY: tuple[Any, ...] = (None, "", [], {})
RawEntries = Annotated[list[Any], Listed]  # a list's entries as the judge wrote them: mappings, or prose


class UndeclaredField(RuntimeError):
    """The parser reads a field the declared replies do not have (renamed, or misspelt): a bug in moot, which
    the parser's guard (`reply_parser`) lets through rather than sending the judge's reply back."""


def reading_keys(field: str) -> tuple[str, ...]:
    """The keys a reply is read by for `field` (a field's name, or a role: OVERALL, STATEMENT), in any round:
    every round's keys, the last round's first, each field's name before its legacy aliases. A name no
    declared reply field has (a misspelt one) is an error, never a field read as empty."""
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


def _read_as(name: str, info: FieldInfo) -> str:
    """What a reading's field reads: its role when it has one, else the declared field of its name."""
    return next((m for m in info.metadata if m in _ROLES), name)


class ReplyContext(TypedDict):
    """What a reply is read with: whose it is, its round, the criteria, the judge's last position, the open
    CRITICAL findings it must answer, a follow-up's earlier findings and what the judges were shown."""

    judge: str
    round_no: int
    criteria: Sequence[Criterion]
    previous: NotRequired[ScoredPosition | None]
    must_answer: NotRequired[Sequence[CriticalFinding]]
    earlier: NotRequired[Earlier | None]
    shown: NotRequired[Sequence[Source]]


class ScoreEntry(ReplyModel):
    """A criterion's score as judges also write it: a list's entry (`- {criterion: design, score: 4}`) or a
    mapping in the criterion's place (`design: {score: 4}`)."""

    criterion: Any = reply_field(aliases=("name", "dimension"), default=None)
    score: Any = reply_field(aliases=("value",), default=None)


class AnswerEntry(ReplyModel):
    """An answer to a CRITICAL finding as judges also write it: a mapping in the finding's place (`C1: {response:
    accept, quote: ...}`) or a list's entry naming the finding (`- {id: C1, response: reject}`)."""

    id: Any = reply_field(aliases=("finding_id",), default=None)
    response: Any = reply_field(default=None)
    quote: Text = reply_field(default="")


def _list() -> Any:
    return Field(default_factory=list)


class ScoredReading(ReplyModel):
    """Every field a judge's reply of any round may give, read once; `position` makes the judge's position.

    Scores, findings' answers and list entries are kept as the judge wrote them here: `position` reads them
    with the debate's criteria, open findings and what the judges were shown, and says what is wrong."""

    # what the declared replies ask for that no position holds (none today: the replies no longer echo the
    # judge's id, stance or round, which moot knows); a field added here is skipped on purpose
    not_read: ClassVar[frozenset[str]] = frozenset()

    overall: Annotated[Any, OVERALL] = None
    dimension_scores: Any = None
    statement: Annotated[LongText, STATEMENT] = ""
    key_claims: RawEntries = _list()
    critical_findings: RawEntries = _list()
    critical_responses: Any = None
    score_changed: Flag = None
    change_reason: LongText = ""
    agreements: RawEntries = _list()
    disagreements: RawEntries = _list()
    concessions_made: RawEntries = _list()
    key_points_maintained: RawEntries = _list()
    unresolved_disputes: RawEntries = _list()
    unresolved_disagreements: RawEntries = _list()
    accepts_consensus: Flag = None
    verification: RawEntries = _list()
    earlier_findings: Any = None

    @model_validator(mode="before")
    @classmethod
    def _first_given(cls, data: Any) -> Any:
        """Each field from the first of its reading keys that holds something (else the first given)."""
        if not isinstance(data, dict):
            return data
        out: dict[str, Any] = {}
        for name, keys in cls.keys().items():
            given = [data[k] for k in keys if k in data]
            full = [v for v in given if v not in _EMPTY]
            if given:
                out[name] = (full or given)[0]
        return out

    @classmethod
    def keys(cls) -> dict[str, tuple[str, ...]]:
        """Each field -> the keys a reply gives it under (`reading_keys`). A field no declared reply has is a
        bug in moot, raised as one (`UndeclaredField`), never a judge's reply sent back nor a field read as empty."""
        try:
            return {name: reading_keys(_read_as(name, info)) for name, info in cls.model_fields.items()}
        except KeyError as e:
            raise UndeclaredField(f"{cls.__name__} reads {e}") from None

    @classmethod
    def required_any(cls) -> tuple[str, ...]:
        """The keys of which a reply must hold one to be read as a reply at all: a score of some kind."""
        return (*reading_keys(OVERALL), *reading_keys("dimension_scores"))

    def position(
        self,
        *,
        judge: str,
        round_no: int,
        criteria: Sequence[Criterion],
        previous: ScoredPosition | None = None,
        must_answer: Sequence[CriticalFinding] = (),
        earlier: Earlier | None = None,
        shown: Sequence[Source] = (),
    ) -> ScoredPosition:
        """The judge's position, or a ReplyError for the judge (see `parsing.parse_scored_reply`)."""
        dims, carried = self._all_dimensions(criteria, previous)
        overall, stated = self._overall(dims, criteria, previous)
        responses = self._checked_responses(must_answer, judge)
        claims = self._claims(shown)
        return ScoredPosition(
            judge=judge,
            round=round_no,
            overall_score=overall,
            stated_overall=stated,
            dimension_scores=dims,
            carried_over=carried,
            statement=self.statement,
            key_claims=[c for c in claims if c.claim],
            raised=self._raised(shown),
            critical_responses=responses,
            confirmations=self._confirmations(shown),
            moved_by=self._moved_by(),
            agreements=_exchanges(self.agreements) + _exchanges(self.concessions_made),
            disagreements=_exchanges(self.disagreements) + _exchanges(self.key_points_maintained),
            unresolved=_unresolved([*self.unresolved_disputes, *self.unresolved_disagreements]),
            score_changed=self.score_changed,
            change_reason=self.change_reason,
            accepts_consensus=self.accepts_consensus,
            verification=_verification(self.verification),
            earlier_answers=parse_answers(self.earlier_findings, earlier),
        )

    def _dimension_scores(self, criteria: Sequence[Criterion]) -> dict[str, float]:
        raw = self.dimension_scores
        if raw is None:
            return {}
        if isinstance(raw, list):  # [{criterion: x, score: y}, ...]
            entries = [ScoreEntry.model_validate(item) for item in raw if isinstance(item, dict)]
            raw = {str(e.criterion): e.score for e in entries if e.criterion is not None}
        if not isinstance(raw, dict):
            raise ReplyError("dimension_scores must be a mapping of criterion to score")
        known = {c.key for c in criteria}
        scores: dict[str, float] = {}
        for name, value in raw.items():
            key = criterion_key(str(name))
            if key not in known:
                continue
            if isinstance(value, dict):
                value = ScoreEntry.model_validate(value).score
            scores[key] = as_score(value, f"the score for '{key}'")
        return scores

    def _all_dimensions(
        self, criteria: Sequence[Criterion], previous: ScoredPosition | None
    ) -> tuple[dict[str, float], list[str]]:
        """Every criterion's score, and which ones carried over unchanged from the judge's last round."""
        dims = self._dimension_scores(criteria)
        missing = [c.key for c in criteria if c.key not in dims]
        if not missing:
            return dims, []
        if previous is None:
            raise ReplyError("dimension_scores is missing a score for: " + ", ".join(missing))
        for key in missing:
            dims[key] = previous.dimension_scores[key]
        return dims, missing

    def _overall(
        self, dims: dict[str, float], criteria: Sequence[Criterion], previous: ScoredPosition | None
    ) -> tuple[float, bool]:
        """The stated overall score; else the last round's when the judge says it did not change; else the
        weighted mean of the dimension scores. With whether it was stated."""
        if self.overall is not None:
            return as_score(self.overall, "the overall score"), True
        if previous is not None and self.score_changed is False:
            return previous.overall_score, False
        return weighted_overall(dims, criteria), False

    def responses(self) -> dict[str, CriticalResponse]:
        """The judge's answer to each CRITICAL finding it names (the answer words' synonyms read as the words)."""
        raw = self.critical_responses
        pairs: list[tuple[Any, Any]] = []
        if isinstance(raw, dict):
            pairs = [(k, AnswerEntry.model_validate(v).response if isinstance(v, dict) else v) for k, v in raw.items()]
        else:
            entries = [AnswerEntry.model_validate(item) for item in as_list(raw) if isinstance(item, dict)]
            pairs = [(e.id, e.response) for e in entries]
        out: dict[str, CriticalResponse] = {}
        for fid, resp in pairs:
            word = RESPONSES.read(str(resp))
            if fid is None or word is None:
                allowed = ", ".join(RESPONSES.words)
                raise ReplyError(f"critical_responses: {preview(resp)} for {preview(fid)} is not one of {allowed}")
            out[str(fid).strip().upper()] = word
        return out

    def _checked_responses(self, must_answer: Sequence[CriticalFinding], judge: str) -> dict[str, CriticalResponse]:
        responses = self.responses()
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

    def _confirmations(self, shown: Sequence[Source]) -> dict[str, str]:
        """Finding id -> the judge's own quote, where an answer gives one (`C1: {response: accept, quote: ...}`)
        and it is found in what was shown: a confirmation that grounds a finding its raiser did not."""
        out: dict[str, str] = {}
        if isinstance(self.critical_responses, dict):
            for fid, given in self.critical_responses.items():
                answer = AnswerEntry.model_validate(given) if isinstance(given, dict) else None
                if (
                    answer
                    and RESPONSES.read(str(answer.response or "")) == "accept"
                    and ground(answer.quote, shown).grounded
                ):
                    out[str(fid).strip().upper()] = answer.quote
        return out

    def _raised(self, shown: Sequence[Source]) -> list[RaisedFinding]:
        found = []
        for item in self.critical_findings:
            if isinstance(item, str):
                if item.strip():
                    found.append(RaisedFinding(finding=item.strip(), **_quoted("", location({}), shown)))
                continue
            if not isinstance(item, dict):
                continue
            entry = RaisedEntry.model_validate(item)
            text = entry.finding
            if (entry.severity or "CRITICAL").upper() == "CRITICAL" and text and not text.startswith("{"):
                quoted = _quoted(entry.quote, location(item), shown)
                found.append(RaisedFinding(finding=text, evidence=entry.evidence, **quoted))
        return found

    def _moved_by(self) -> list[str]:
        """What a score change names as its cause: finding ids (`C2`) and judges' letters (`Judge B` -> `B`),
        from `change_reason` (or, in the final round, whom each concession names)."""
        texts = [self.change_reason]
        texts += [ConcessionEntry.model_validate(c).convinced_by for c in self.concessions_made if isinstance(c, dict)]
        text = "\n".join(texts)
        refs = [m.upper() for m in _FINDING_ID.findall(text)] + [m.upper() for m in _JUDGE_LETTER.findall(text)]
        refs += [m.lower() for m in _JUDGE_SEAT.findall(text)]  # a seat id, when reports are not anonymous
        return list(dict.fromkeys(refs))

    def _claims(self, shown: Sequence[Source]) -> list[KeyClaim]:
        claims = []
        for item in self.key_claims:
            if isinstance(item, dict):
                entry = ClaimEntry.model_validate(item)
                quoted = _quoted(entry.quote, location(item), shown)
                claims.append(
                    KeyClaim(claim=entry.claim, evidence=entry.evidence, confidence=entry.confidence.upper(), **quoted)
                )
            elif item:
                claims.append(KeyClaim(claim=as_text(item), **_quoted("", location({}), shown)))
        return claims


_FINDING_ID = re.compile(r"\b(C\d+)\b")
_JUDGE_LETTER = re.compile(r"\bjudge[\s-]+([A-Z])\b", re.IGNORECASE)
_JUDGE_SEAT = re.compile(r"\b(judge-\d+)\b", re.IGNORECASE)


def _quoted(quote: str, place: dict[str, Any], shown: Sequence[Source]) -> dict[str, Any]:
    """A finding's quote, its place, and whether the quote is found there (`moot.grounding`)."""
    return {"quote": quote, **place, **ground(quote, shown, file=place["file"], line=place["line"]).fields()}


def _exchanges(entries: Sequence[Any]) -> list[Exchange]:
    out = []
    for item in entries:
        if isinstance(item, dict):
            entry = AgreementEntry.model_validate(item)
            rest = {k: v for k, v in item.items() if k not in ("with_judge", "on_point")}
            out.append(Exchange(with_judge=entry.with_judge, on_point=entry.on_point, detail=as_text(rest)))
        elif item:
            out.append(Exchange(on_point=as_text(item)))
    return out


def _unresolved(entries: Sequence[Any]) -> list[str]:
    out = []
    for item in entries:
        if isinstance(item, dict):
            entry = DisputeEntry.model_validate(item)
            topic, mine, theirs = entry.topic, entry.my_view, entry.opposing_view
            out.append(f"{topic} (mine: {mine}; opposing: {theirs})" if mine or theirs else topic)
        elif item:
            out.append(as_text(item))
    return [u for u in out if u]


def _verification(entries: Sequence[Any]) -> list[str]:
    out = []
    for item in entries:
        if isinstance(item, dict):
            entry = CheckEntry.model_validate(item)
            out.append(f"{entry.question} -> {entry.answer}" if entry.answer else entry.question)
        elif item:
            out.append(as_text(item))
    return out
