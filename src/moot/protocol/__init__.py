"""`moot.protocol`: the one module a protocol's author imports. A protocol is a handful of declared types
and the few functions only it can write; moot derives the rest from them:

- its judges' replies: `ReplyModel`s (`reply_field`, `Text`, `Score`, ...), from which come the JSON schema
  sent (`reply_schema`), the prompt's example (`reply_example`) and the parser (`read_reply`); a set of
  words a reply gives, declared once with their synonyms and meanings (`Words`, `Meaning`; the confidence
  words are `CONFIDENCE`);
- its arguments: one `ProtocolArgs` model (each field an `arg` with its `Arg`), from which come its Python
  function and sync twin (`api_function`), a builder that validates the same arguments (`api_builder`), its
  command and its MCP tool; its keys of a judges file are the model's `settings`, and the run options it
  takes after its own (`RunArgs`, declared the same way) its `run`;
- its steps: a class with `plan`, `absorb` and `result` over `Step`s of `Call`s, which one runner drives;
- its result: a `ResultEnvelope` (or `RunEnvelope`) subclass, with a `Verdict`;
- its `SPEC`: a `ProtocolSpec` with its groups (`cli=CliSpec`, `views=ViewSpec`, `verdict=VerdictSpec`,
  `batch=BatchSpec`, `bench=BenchRole`, `demo=DemoSpec`).

`tests/toy_protocol/moot_toy/` is the worked example, imports nothing else of moot, and is what
docs/architecture.md tells a newcomer to copy. The names below are pinned (`tests/test_protocol_surface.py`):
removing or renaming one breaks every protocol written against it.

The framework's own modules live beside this one: `spec` (the spec and its groups), `args`, `verdict`,
`prepared` (a debate ready to run, resume or estimate, and its life in the store), `panel` (judges seated
from a file or from code), `demo` and `effect` (what the debate changed).
"""

from moot.engine.ask import Answer
from moot.engine.budget import scenarios, tokens_of
from moot.engine.steps import Call, Outcome, Step
from moot.errors import UsageError
from moot.judges.base import Seat
from moot.panel_file import PanelFile
from moot.parsing.extract import ReplyError, as_bool, as_text, reply_parser
from moot.parsing.replies import (
    Flag,
    LongText,
    ReplyModel,
    Required,
    Score,
    Text,
    items,
    one_of,
    read_reply,
    reply_example,
    reply_field,
    reply_schema,
    specialize,
    word,
)
from moot.prompts import Templates
from moot.protocol.args import Arg, ProtocolArgs, RunArgs, api_builder, api_function, arg
from moot.protocol.demo import DemoSpec
from moot.protocol.effect import seat_fate
from moot.protocol.panel import JudgeLike, blocking, check_rounds, load_panel, make_seats, resumed_judges
from moot.protocol.prepared import Prepared
from moot.protocol.spec import BatchSpec, BenchRole, CliSpec, ProtocolSpec, Terminal, ViewSpec
from moot.protocol.verdict import VerdictSpec, VerdictTone
from moot.render.terminal import TextReport, TextTable
from moot.schemas.config import JudgeSpec
from moot.schemas.effect import NO_ANSWER, TIE, DebateEffect, JudgeEffect
from moot.schemas.envelope import (
    PanelRecorded,
    ResultEnvelope,
    RunEnvelope,
    RunStatus,
    SeatStatus,
    Verdict,
    VerdictConfidence,
    VerdictKind,
)
from moot.schemas.messages import Message, Prompt
from moot.schemas.spend import Spend
from moot.schemas.words import CONFIDENCE, Meaning, Words

__all__ = [
    "CONFIDENCE",
    "NO_ANSWER",
    "TIE",
    "Answer",
    "Arg",
    "BatchSpec",
    "BenchRole",
    "Call",
    "CliSpec",
    "DebateEffect",
    "DemoSpec",
    "Flag",
    "JudgeEffect",
    "JudgeLike",
    "JudgeSpec",
    "LongText",
    "Meaning",
    "Message",
    "Outcome",
    "PanelFile",
    "PanelRecorded",
    "Prepared",
    "Prompt",
    "ProtocolArgs",
    "ProtocolSpec",
    "ReplyError",
    "ReplyModel",
    "Required",
    "ResultEnvelope",
    "RunArgs",
    "RunEnvelope",
    "RunStatus",
    "Score",
    "Seat",
    "SeatStatus",
    "Spend",
    "Step",
    "Templates",
    "Terminal",
    "Text",
    "TextReport",
    "TextTable",
    "UsageError",
    "Verdict",
    "VerdictConfidence",
    "VerdictKind",
    "VerdictSpec",
    "VerdictTone",
    "ViewSpec",
    "Words",
    "api_builder",
    "api_function",
    "arg",
    "as_bool",
    "as_text",
    "blocking",
    "check_rounds",
    "items",
    "load_panel",
    "make_seats",
    "one_of",
    "read_reply",
    "reply_example",
    "reply_field",
    "reply_parser",
    "reply_schema",
    "resumed_judges",
    "scenarios",
    "seat_fate",
    "specialize",
    "tokens_of",
    "word",
]
