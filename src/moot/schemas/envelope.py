"""The result envelope (issue 22): the keys every protocol's result starts with.

`--format json`/`yaml`, the API's `model_dump()`, a `moot batch` RESULTS.jsonl line's `result` and MCP tool
results all begin with `protocol, debate_id, status, verdict, rounds_completed, judges, spend,
debate_effect`, in that order; each protocol's own keys follow. Readers that want the facts every protocol
shares (the gate, the HTML and GitHub renderers, batch summaries, the viewer) read these keys only, so they
never guess which key a protocol keeps its verdict under.

Each type here is defined once; the protocols' result models carry these fields (`EnvelopeFirst` puts them
first when serialised) and their judge entries extend `SeatStatus`. `Envelope` itself is the model the
shipped JSON Schema (`envelope.schema.json`, beside this module) is generated from.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar, get_args

from pydantic import (
    BaseModel,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from moot.schemas.effect import DebateEffect
from moot.schemas.panel import PanelReport
from moot.schemas.spend import Spend
from moot.schemas.words import Confidence

RunStatus = Literal["finished", "stopped", "aborted"]
VerdictKind = Literal["consensus", "majority", "contested", "forced", "tradeoff"]
VerdictConfidence = Literal[Confidence, "REQUIRES_INPUT"]  # the confidence words (`moot.schemas.words`), or a person's
JudgeStatus = Literal["ok", "dropped", "unparsed"]

__all__ = [
    "ENVELOPE_KEYS",
    "Envelope",
    "PanelRecorded",
    "ResultEnvelope",
    "RunEnvelope",
    "SeatStatus",
    "Verdict",
    "envelope_of",
    "envelope_schema",
    "headline",
    "shipped_schema",
]

ENVELOPE_KEYS = ("protocol", "debate_id", "status", "verdict", "rounds_completed", "judges", "spend", "debate_effect")
# keys the envelope may carry after those eight: `panel` (issue 30), absent from results stored before it and
# from a plugin protocol's result that has no such field
OPTIONAL_KEYS = ("panel",)
SCHEMA_PATH = Path(__file__).with_name("envelope.schema.json")

# the notes a budget stop leaves (engine.core's round gate), read when a result stored before `status`
# existed is loaded again
_STOP_NOTES = ("stopped before round", "not starting round")


class Verdict(BaseModel):
    """What the debate came to, in the same four words for every protocol."""

    kind: VerdictKind
    answer: str | None  # PASS/CONDITIONAL/FAIL; an option id (None: contested, nobody chose); a one-line position
    confidence: VerdictConfidence
    needs_human: bool  # no verdict a gate should act on without a person: contested, forced or a tradeoff


def split_status(status: str) -> tuple[JudgeStatus, str | None]:
    """A judge's status as results before the envelope wrote it ("dropped: timeout ...") -> (status, reason)."""
    word, _, why = status.partition(":")
    word = word.strip()
    reason = why.strip() or None
    if word == "ok":
        return "ok", reason
    if word in ("unparsed", "unusable"):
        return "unparsed", reason
    if word.startswith("dropped"):  # challenge: "dropped in round 2: why"
        extra = word.removeprefix("dropped").strip()
        return "dropped", " ".join(p for p in (extra, reason or "") if p) or None
    return "dropped", status.strip() or None


class SeatStatus(BaseModel):
    """One seat of the panel in the envelope's `judges` list: who sat there and whether its voice counted.

    `status`: ok (answered to the end), dropped (failed for good: `reason` says why) or unparsed (answered,
    but its last reply gave nothing the protocol could count)."""

    seat: str
    model: str
    stance: str
    status: JudgeStatus
    reason: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _legacy(cls, data: Any) -> Any:
        """Results stored before the envelope: `judge` for the seat id, free text in `status`."""
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        if "seat" not in data and "judge" in data:
            data["seat"] = data["judge"]
        if "judge" in cls.model_fields and "judge" not in data and "seat" in data:
            data["judge"] = data["seat"]
        status = data.setdefault("status", "ok")  # the default of every version that wrote a judge
        if isinstance(status, str) and status not in ("ok", "dropped", "unparsed"):
            data["status"], reason = split_status(status)
            data.setdefault("reason", reason)
        return data

    @property
    def fate(self) -> str:
        """The status as a person reads it: `ok`, or `dropped: <reason>`."""
        return f"{self.status}: {self.reason}" if self.reason else self.status


class Envelope(BaseModel):
    """The envelope alone: what the shipped JSON Schema describes, and what `envelope_of` returns."""

    protocol: str  # the name of a registered protocol (`moot.protocols.names()`)
    debate_id: str
    status: RunStatus
    verdict: Verdict
    rounds_completed: int
    judges: list[SeatStatus]
    spend: Spend
    debate_effect: DebateEffect | None
    panel: PanelReport | None = None  # seats, models, families and warnings (None: stored before it existed)


class EnvelopeFirst(BaseModel):
    """A protocol's result: its envelope keys first when serialised, whatever order its fields are in.
    `redactions` lists the secrets replaced by `[REDACTED:<kind>]` before any call (`--redact-secrets`):
    where and which kind, never the value; a result without any does not carry the key."""

    redactions: list[dict[str, Any]] = Field(default_factory=list)
    # keys a result leaves out when empty or None, so that results without them keep today's JSON
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("redactions",)

    @model_serializer(mode="wrap")
    def _envelope_first(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        data = handler(self)
        if not isinstance(data, dict):
            return data
        for key in self.omitted_when_empty:
            if key in data and data[key] in (None, [], {}):
                del data[key]
        head = {k: data[k] for k in (*ENVELOPE_KEYS, *OPTIONAL_KEYS) if k in data}
        return {**head, **{k: v for k, v in data.items() if k not in head}}


ProtocolName = TypeVar("ProtocolName", bound=str)
JudgeEntry = TypeVar("JudgeEntry", bound=SeatStatus)


class RunEnvelope(EnvelopeFirst, Generic[ProtocolName]):
    """The envelope's fields a result stores, declared once: a protocol's result model inherits them,
    narrowed to its own name (`RunEnvelope[Literal["challenge"]]`), and adds its own. The verdict is each
    protocol's computed field; `rounds_completed` and `judges` come with `ResultEnvelope` (or are computed,
    as challenge's are). A result without `protocol` (one its model is built for, or one stored before the
    key) is given the name its model is narrowed to."""

    protocol: ProtocolName = None  # type: ignore[assignment]  # always given: `_named` fills it in
    debate_id: str
    status: RunStatus = "finished"  # "stopped": the budget ended it before its last round
    spend: Spend = Field(default_factory=Spend)
    debate_effect: DebateEffect | None = None  # None in results stored before it was recorded

    @model_validator(mode="before")
    @classmethod
    def _named(cls, data: Any) -> Any:
        names = get_args(cls.model_fields["protocol"].annotation)
        if isinstance(data, Mapping) and data.get("protocol") is None and len(names) == 1:
            data = {**data, "protocol": names[0]}
        return run_status(data)


class ResultEnvelope(RunEnvelope[ProtocolName], Generic[ProtocolName, JudgeEntry]):
    """`RunEnvelope` with the rounds done and the panel's seats, each an entry of the protocol's own type
    (a `SeatStatus` with what the protocol adds: `ResultEnvelope[Literal["decide"], DecisionJudge]`)."""

    rounds_completed: int
    judges: list[JudgeEntry] = Field(default_factory=list)


class PanelRecorded(BaseModel):
    """The envelope's `panel`, for a result that records it (`moot.engine.panel_check.temper` fills it in)."""

    panel: PanelReport | None = None  # the panel's models, families and warnings (None: stored before it)

    def cap_confidence(self, reason: str) -> None:
        """A one-family panel's agreement is not HIGH confidence (`moot.engine.panel_check.temper`): MEDIUM,
        with the reason in the result's `notes`. Every result that records its panel caps it the same way."""
        holder = self.confidence_holder()
        if getattr(holder, "confidence", None) == "HIGH":
            holder.confidence = "MEDIUM"
            notes = getattr(self, "notes", None)  # each result declares its own notes (a plugin's may not)
            if isinstance(notes, list):
                notes.append(reason)

    def confidence_holder(self) -> Any:
        """The model whose `confidence` a one-family panel caps: the result itself unless it keeps the
        confidence deeper (evaluate: its `summary`)."""
        return self


def run_status(data: Any) -> Any:
    """For a `mode="before"` validator: a stored result without `status` is finished, or stopped when its
    notes say the budget stopped it."""
    if isinstance(data, Mapping) and "status" not in data:
        notes = data.get("notes") or []
        stopped = any(isinstance(n, str) and n.startswith(_STOP_NOTES) for n in notes)
        data = {**data, "status": "stopped" if stopped else "finished"}
    return data


def one_line(text: str, limit: int = 200) -> str:
    """The first line of `text`, cut at `limit` characters (challenge's answer: its final position)."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def envelope_of(result: Mapping[str, Any]) -> Envelope | None:
    """The envelope of a result's JSON, or None when it has none (not a result, or malformed)."""
    try:
        return Envelope.model_validate({k: result.get(k) for k in (*ENVELOPE_KEYS, *OPTIONAL_KEYS)})
    except ValueError:
        return None


def headline(result: Mapping[str, Any] | None, words: Mapping[str, str] | None) -> str:
    """The one word a list shows for a result, read from its envelope alone: the verdict's answer when
    `words` is None (PASS/FAIL/CONDITIONAL), else the word `words` gives its verdict's kind
    (RECOMMENDED/CONTESTED, CONSENSUS/TRADEOFF); "" for anything without an envelope. Each protocol gives
    its own `words` (`VerdictSpec.outcome_words`), so that this reads no protocol's name."""
    verdict = result.get("verdict") if isinstance(result, Mapping) else None
    if not isinstance(verdict, Mapping):
        return ""
    if words is None:
        return str(verdict.get("answer") or "")
    return words.get(str(verdict.get("kind") or ""), "")


def envelope_schema() -> dict[str, Any]:
    """The envelope's JSON Schema, as shipped in `envelope.schema.json` (a test regenerates and compares)."""
    schema = Envelope.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["description"] = (
        "The keys every moot result (evaluate, decide, challenge) starts with; protocol-specific keys follow."
    )
    return schema


def shipped_schema() -> dict[str, Any]:
    """The JSON Schema file shipped in the package."""
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return data
