"""`moot doctor --ping`: does each API judge answer a real (tiny) request, and how fast?

Unlike the preflight checks this spends a few tokens per model: one short prompt, a reply bound to a few
tokens, no retries (a ping measures the vendor as it is now). Fallback models are pinged too, since they
take the seat when the primary is down.

A judge on an OpenAI-compatible server is pinged with a one-word reply schema, so that `structured: auto`
finds the form the server takes, and the ping names it ("answers in 210 ms, structured: json_object").
A judge on a grammar server is then sent a reply schema as long as any moot sends (every string at the
grammar cap), for one token: the row says whether the server turns it into a grammar, so that a server that
refuses the schema (or dies of it) is told apart from one that is down.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from moot.errors import JudgeError, MootError
from moot.judges.base import Judge
from moot.judges.providers import grammar_server
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_bounds import GRAMMAR_MAX_LENGTH
from moot.schemas.reply_schemas import array, choice, long_text, obj, score, text
from moot.schemas.words import CONFIDENCE

PING_TIMEOUT_S = 30.0
PING_PROMPT = Prompt(
    system="You are checking that a connection works.",
    messages=[Message(role="user", content="Reply with the single word: pong")],
    max_tokens=16,
)
PING_SCHEMA = {
    "type": "object",
    "properties": {"reply": {"type": "string", "enum": ["pong"]}},
    "required": ["reply"],
    "additionalProperties": False,
}


@dataclass
class Ping:
    model: str  # as sent to the vendor
    ok: bool
    latency_ms: int
    answered_by: str = ""
    error: str = ""
    structured: str = ""  # the form the server took the reply schema in ("" when none was sent)
    grammar: str = ""  # grammar servers: whether the longest reply schema parses ("" when not probed)


async def ping_judge(judge: Judge, timeout: float = PING_TIMEOUT_S) -> Ping:
    t0 = time.monotonic()
    # only judges that negotiate a form (OpenAI-compatible ones) are sent the schema
    prompt = PING_PROMPT.model_copy(update={"json_schema": PING_SCHEMA}) if hasattr(judge, "forms") else PING_PROMPT
    try:
        completion = await judge.complete(prompt, timeout=timeout)
    except (JudgeError, TimeoutError) as e:
        return Ping(judge.model, False, int((time.monotonic() - t0) * 1000), error=str(e) or "no reply")
    ms = int((time.monotonic() - t0) * 1000)
    return Ping(judge.model, True, ms, answered_by=completion.model, structured=completion.structured)


# As long a reply schema as moot sends: strings at their nominal lengths (so at the grammar cap once fitted),
# a list of objects, scores and a choice; sent for one output token.
PROBE_SCHEMA = obj(
    {
        "position": long_text("a paragraph"),
        "claims": array(obj({"claim": text(), "evidence": text(), "score": score()}), min_items=1),
        "confidence": choice(CONFIDENCE.words),
    }
)


async def grammar_probe(judge: Any, timeout: float = PING_TIMEOUT_S) -> str:
    """Whether a grammar server takes the longest reply schema: "parses", or the one-line reason it does not."""
    import openai

    from moot.judges.wire_errors import GRAMMAR_REFUSED, map_stainless_error

    prompt = PING_PROMPT.model_copy(update={"json_schema": PROBE_SCHEMA, "max_tokens": None})  # fitted at the cap
    body = judge.request(prompt)
    body["max_tokens"] = 1
    try:
        await judge.client().post("/chat/completions", body=body, cast_to=object, options={"timeout": timeout})
    except openai.APIConnectionError:
        return f"{GRAMMAR_REFUSED}: it closed the connection on the schema (it may have crashed: is it still up?)"
    except openai.OpenAIError as e:
        return str(map_stainless_error(openai, e, timeout))
    return f"parses (strings up to {GRAMMAR_MAX_LENGTH} characters)"


def _answers(p: Ping) -> str:
    if not p.ok:
        return f"no answer: {p.error}"
    return f"answers in {p.latency_ms} ms" + (f", structured: {p.structured}" if p.structured else "")


async def ping_spec(spec: JudgeSpec, timeout: float = PING_TIMEOUT_S) -> list[Ping]:
    """Ping the spec's model and each fallback, in seat order. Raises UsageError if it cannot be built."""
    from moot.judges.factory import build_judges, require_credentials

    judges = build_judges(spec)  # its own bound, if any: the probe's schema is fitted as a call's would be
    require_credentials(judges)
    try:
        pings = [await ping_judge(j, timeout) for j in judges]
        if pings[0].ok and pings[0].structured and grammar_server(spec):
            pings[0].grammar = await grammar_probe(judges[0], timeout)
        return pings
    finally:
        for j in judges:
            await j.aclose()


async def check_ping(row: dict[str, Any], spec: Any) -> None:
    """A `moot doctor` step: API judges that passed the preflight get a live ping, with latency."""
    if row.get("kind") != "api" or not row.get("usable"):
        return
    try:
        pings = await ping_spec(spec)
    except MootError as e:
        row.update(usable=False, ping=f"not pinged: {e}")
        return
    first = pings[0]
    row["ping_ms"] = first.latency_ms
    row["ping"] = _answers(first)
    if first.structured:
        row["structured"] = first.structured
    if first.grammar:
        row["grammar"] = first.grammar
        if not first.grammar.startswith("parses"):
            row["usable"] = False
            row["detail"] = f"{row.get('detail', '')}; {first.grammar}".strip("; ")
    if len(pings) > 1:
        row["fallbacks_ping"] = {p.model: _answers(p) for p in pings[1:]}
    if not any(p.ok for p in pings):
        row["usable"] = False
        row["detail"] = f"{row.get('detail', '')}; ping failed: {first.error}".strip("; ")
