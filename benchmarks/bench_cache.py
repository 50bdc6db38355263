"""Benchmark: how much of each debate's input a vendor's prompt cache can serve, per round, for the three
protocols (evaluate, decide, challenge), with a small and a large artifact.

Each debate runs in full against the local server (replies that never converge, so every round runs), with
judges on the OpenAI wire, so that each request carries its reply schema as OpenAI's would. For every call
the script then measures the longest prefix it shares with an earlier call: that is what OpenAI's,
Anthropic's and Gemini's prompt caches can serve. A prefix under the vendors' minimum (1,024 tokens) counts
as uncached, and a longer one is rounded down to OpenAI's 128-token steps. Tokens are characters / 4.

Four ways of counting, one line each:
- one model, in turn: every judge on one model, each call after the one before (the layout's best case);
- one model, at once: a step's calls go out together, so a call reuses only earlier steps' prefixes (a
  vendor caches a prefix once it has processed a request, not while);
- a model per judge: each seat on its own model, so a call reuses only its own earlier calls;
- + reply schema: "one model, in turn", with the reply schema sent before the system prompt, which is
  where OpenAI puts a structured-output schema (a schema that differs between two calls ends their prefix).

    python benchmarks/bench_cache.py [--judges 3] [--small FILE] [--large-kb 40] [--protocol evaluate ...]

Run it against another checkout (e.g. `PYTHONPATH=/tmp/old/src`) to compare two prompt layouts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "src/moot/protocols/evaluate/demo/users-api/users.ts"
CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]
MIN_CACHEABLE_TOKENS = 1024
CACHE_STEP_TOKENS = 128
PROSE = "The evidence, quoted from the artifact, and what it means for this criterion. " * 12

_ROUND = re.compile(r"\b[Rr]ound (\d+) of (?:at most )?\d+")
_PHASE = re.compile(r"\bPhase (\d): ([A-Z][A-Z ]+[A-Z])")
_OBJECTION = re.compile(r'<objection id="(O\d+)"')

# ------------------------------------------------------------------ what a call is, and what it shares


@dataclass(frozen=True)
class Seen:
    """One request as the cache sees it."""

    model: str
    round: str  # "round 1", ..., "final"
    step: str  # the step it went out with
    schema: str
    text: str


def step_of(user: str) -> tuple[str, str]:
    """The round and step of a prompt, from its round header and (challenge) its phase."""
    phase = _PHASE.search(user)
    found = _ROUND.search(user)
    round_no = found.group(1) if found else "1"
    if phase and phase.group(1) == "7":
        return "final", "final assumptions"
    label = f"round {round_no}"
    return label, f"{label} {phase.group(2).lower()}" if phase else label


def seen(request: Any) -> Seen:
    """A request on the OpenAI wire or Anthropic's, as the same text (its system text first); a primer (a
    one-word question moot sends before a step whose judges share a cache) is a step of its own."""
    from moot.engine.priming import PRIMER_ASK, PRIMER_KIND

    body = request.body
    messages = list(body["messages"])
    if request.wire == "anthropic":
        system = "".join(b["text"] for b in body["system"]) if isinstance(body["system"], list) else body["system"]
        messages = [{"role": "system", "content": system}, *messages]
    text = "\x00".join(f"{m['role']}:{m['content']}" for m in messages)
    user = messages[-1]["content"]
    round_label, step = (PRIMER_KIND, PRIMER_KIND) if user == PRIMER_ASK else step_of(user)
    # as the SDKs send it: compact JSON (the spaces `json.dumps` adds by default would count ~10 % more)
    schema = json.dumps(body.get("response_format") or body.get("output_config") or {}, separators=(",", ":"))
    return Seen(request.model, round_label, step, schema, text)


def _common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def cacheable(chars: int) -> int:
    """The tokens a vendor's cache serves of a shared prefix of `chars` characters."""
    tokens = chars // 4
    if tokens < MIN_CACHEABLE_TOKENS:
        return 0
    return MIN_CACHEABLE_TOKENS + (tokens - MIN_CACHEABLE_TOKENS) // CACHE_STEP_TOKENS * CACHE_STEP_TOKENS


@dataclass(frozen=True)
class Way:
    label: str
    same_model: bool
    at_once: bool
    schema: bool


WAYS = (
    Way("one model, in turn", True, False, False),
    Way("one model, at once", True, True, False),
    Way("a model per judge", False, False, False),
    Way("+ reply schema", True, False, True),
)


def measure(calls: Sequence[Seen], way: Way) -> dict[str, tuple[int, int]]:
    """Per round: (cacheable tokens, input tokens)."""
    out: dict[str, tuple[int, int]] = {}
    for i, call in enumerate(calls):
        text = (call.schema + call.text) if way.schema else call.text
        best = 0
        for earlier in calls[:i]:
            if (way.same_model or earlier.model == call.model) and not (way.at_once and earlier.step == call.step):
                best = max(best, _common(text, (earlier.schema + earlier.text) if way.schema else earlier.text))
        cached, total = out.get(call.round, (0, 0))
        out[call.round] = (cached + cacheable(best), total + len(text) // 4)
    return out


# ------------------------------------------------------------------ scripted judges, one per protocol


def _index(model: str) -> int:
    return int(model.rsplit("-", 1)[1]) if model[-1].isdigit() else -1


def evaluate_reply(model: str, user: str) -> str:
    """Scores that never converge (1.5 / 3.0 / 4.5 ...), so that all three rounds run."""
    score = [1.5, 3.0, 4.5][_index(model) % 3]
    round_no = 1 if "Round 1 of" in user else (3 if "FINAL POSITIONS" in user else 2)
    key = {1: "overall_score", 2: "new_score", 3: "final_score"}[round_no]
    data = {  # the keys the round's template asks for (no `round`: moot knows it)
        key: score,
        "dimension_scores": {k: round(score) for k in KEYS},
        "position_statement": PROSE,
        "key_claims": [{"claim": "c", "evidence": "e", "confidence": "HIGH"}],
        "critical_findings": [],
    }
    return yaml.safe_dump(data)


STANCES = ("risk", "value", "effort")


def decide_reply(model: str, user: str) -> str:
    """Each judge on an option of its own in both rounds: contested, so both rounds run."""
    me = _index(model)
    data: dict[str, Any] = {"recommendation": "ABC"[me % 3], "confidence": "HIGH", "rationale": PROSE}
    if "Round 1 of" not in user:
        others = [s for i, s in enumerate(STANCES) if i != me % 3]
        data["challenges"] = [{"judge": s, "counter_argument": "its reasoning overlooks the cost"} for s in others]
    return yaml.safe_dump(data)


QUOTE = "Shard by customer id"  # the words of the position each scripted objection answers, as the template asks


def challenge_reply(model: str, user: str) -> str:
    """A proponent that rejects every objection and challengers that maintain theirs, each objection on a
    verbatim quote of the position: every round runs, and no reply is sent back."""
    phase = _PHASE.search(user)
    kind = phase.group(1) if phase else "1"
    if kind == "1":
        data: dict[str, Any] = {"position": QUOTE, "reasoning": PROSE, "confidence": "HIGH"}
    elif kind == "2":
        data = {"verdict": "disagree", "objection_strength": "strong", "objections": [PROSE[:300]], "quotes": [QUOTE],
                "reasoning": PROSE}  # fmt: skip
    elif kind == "4":
        ids = _OBJECTION.findall(user)
        responses = [{"objection": o, "decision": "REJECT", "reason": "not so"} for o in ids]
        data = {"responses": responses, "position": QUOTE, "confidence": "HIGH", "reasoning": PROSE}
    elif kind == "5":
        data = {"response": "MAINTAIN", "reasoning": PROSE, "objections": [PROSE[:300]], "quotes": [QUOTE]}
    else:
        data = {
            "why_disagree": PROSE,
            "what_would_change_my_mind": "data",
            "assumptions": ["a"],
            "core_disagreement": "b",
        }
    return json.dumps(data)


REPLIES: dict[str, Callable[[str, str], str]] = {
    "evaluate": evaluate_reply,
    "decide": decide_reply,
    "challenge": challenge_reply,
}


def _judge(model: str, base_url: str, **extra: Any) -> dict[str, Any]:
    # the OpenAI wire, so that each request carries its reply schema; the key only satisfies the SDK
    return {"model": model, "provider": "openai", "api_base": base_url, "api_key": "local-bench", **extra}


async def run_debate(
    protocol: str, base_url: str, n: int, artifact: Path, home: Path, text: str, judge: Any = None
) -> None:
    """One debate of `protocol` against the local server at `base_url`; `judge(model, base_url, stance=)`
    makes evaluate's judges (default: the OpenAI wire, a model per judge)."""
    from moot import api
    from moot.store import Store

    store = Store(home / "moot.db")
    try:
        if protocol == "evaluate":
            stances = ["neutral", "for", "against"]
            judges = [(judge or _judge)(f"bench-{i}", base_url, stance=stances[i % 3]) for i in range(n)]
            await api.evaluate(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None, store=store)
        elif protocol == "decide":
            judges = [_judge(f"bench-{i}", base_url, stance=STANCES[i % 3]) for i in range(n)]
            options = ["A=Online only", "B=Full offline", "C=Limited offline"]
            await api.decide("Ship it?", options, context=text, judges=judges, write_files=False, store=store)
        else:
            challengers = [_judge(f"bench-{i}", base_url) for i in range(n)]
            await api.challenge(
                "Should the orders table be sharded by customer id?",
                context=str(artifact),
                proponent=_judge("bench-p", base_url),
                challengers=challengers,
                max_rounds=3,
                store=store,
            )
    finally:
        store.close()


def calls_of(protocol: str, n: int, artifact: Path) -> list[Seen]:
    from moot.testing import FakeLLMServer, Reply

    reply = REPLIES[protocol]
    home = Path(tempfile.mkdtemp(prefix="moot-cache-"))
    os.environ["MOOT_HOME"] = str(home)
    with FakeLLMServer() as server:
        server.responder = lambda model, body: Reply(text=reply(model, body["messages"][-1]["content"]))
        text = artifact.read_text(encoding="utf-8")
        asyncio.run(run_debate(protocol, server.base_url, n, artifact, home, text))
        return [seen(r) for r in server.requests]


# ------------------------------------------------------------------ report


def large_artifact(kb: int) -> Path:
    """About `kb` KB of real source text: moot's own engine, concatenated."""
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "src/moot/engine").glob("*.py")))
    while len(text) < kb * 1000:
        text += text
    path = Path(tempfile.mkdtemp(prefix="moot-cache-art-")) / "engine.py"
    path.write_text(text[: kb * 1000], encoding="utf-8")
    return path


def report(protocol: str, size: str, calls: Sequence[Seen], artifact: Path) -> None:
    rounds = list(dict.fromkeys(c.round for c in calls))
    kb = len(artifact.read_text(encoding="utf-8")) / 1000
    total_in = sum(len(c.text) // 4 for c in calls)
    print(f"\n{protocol}, {size} artifact ({kb:.1f} KB): {len(calls)} calls, {total_in:,} input tokens")
    print(f"  {'':22}" + "".join(f"{r:>10}" for r in rounds) + f"{'all':>8}{'uncached':>11}")
    for way in WAYS:
        rows = measure(calls, way)
        cached = sum(c for c, _ in rows.values())
        total = sum(t for _, t in rows.values())
        shares = "".join(f"{100 * rows[r][0] / rows[r][1]:>9.0f}%" for r in rounds)
        print(f"  {way.label:22}{shares}{100 * cached / total:>7.0f}%{total - cached:>11,}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--judges", type=int, default=3, help="judges per panel (challenge: challengers)")
    ap.add_argument("--small", default=str(SMALL), help="the small artifact (default: the demo's users.ts)")
    ap.add_argument("--large-kb", type=int, default=40, help="size of the large artifact, in KB")
    ap.add_argument("--protocol", nargs="*", default=list(REPLIES), choices=list(REPLIES))
    args = ap.parse_args()
    import moot

    print(f"moot from {Path(moot.__file__).parent}; {args.judges} judges per panel")
    artifacts = {"small": Path(args.small), "large": large_artifact(args.large_kb)}
    for protocol in args.protocol:
        for size, artifact in artifacts.items():
            report(protocol, size, calls_of(protocol, args.judges, artifact), artifact)


if __name__ == "__main__":
    main()
