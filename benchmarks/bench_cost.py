"""Benchmark: what a debate costs against one judge's single call and a bare hand-written debate, with each
vendor's prompt-cache prices.

For the demo's 12-line artifact and a 40 KB one, a 3-judge 3-round `evaluate` and a 3-judge `decide` run
in full against the local server (scripted replies that never converge, so every round runs; the judges on
the OpenAI wire, each on its own model, so each request carries its reply schema). Beside them, in the
same run:

- **one Claude**: the same evaluate with its three seats on one Claude model on Anthropic's wire, where
  moot sends a primer before round 1 (`moot.engine.priming`) when the shared block is long enough to cache;
- **single**: one judge's one call on the same input (the debate's first request, alone);
- **bare**: the same 3-judge 3-round evaluate written directly on the OpenAI SDK, with the shortest
  prompts that still carry the task, the criteria, the artifact, a stance and the other judges' replies
  (the reference a user would write by hand), answered by the same scripted replies.

Printed per debate: input and output tokens (characters / 4), the share of input tokens after the first call
that repeat an earlier call's prefix byte for byte, and the cost at Anthropic's, OpenAI's and Gemini's list
prices with their cache rules:

- Anthropic caches the system block moot marks: a call whose system text a call of an earlier step sent
  reads it at the cache-read rate; otherwise it writes it at the write rate (1,024 tokens at least);
- OpenAI and Gemini cache a prefix repeated from a call of an earlier step automatically (1,024 tokens at
  least, in 128-token steps).

The calls of one step (a round's judges) go out together, and a vendor's cache serves a prefix only once
the call that wrote it has been processed, so the judges of a step do not read each other's prefix (the
rule `moot.engine.prefix_share` applies to the dry run's expected cached share). The prices take every
judge on one model, the case where judges can share a cache at all.

A `challenge` of three challengers and up to three rounds runs too (its question fixed, the artifact as
context). Each evaluate judge reads the others' reports in an order drawn from what is judged (the
artifact's path and text), and how much of a round two judges share depends on that draw, so the repeated
share of the 40 KB evaluate is also measured over `--draws` copies of the artifact at different paths
(minimum, median and maximum).

Then the targets as ratios: the repeated share on the 40 KB artifact (>= 95 %), prompt tokens against the
bare reference on the 12-line one (<= 1.5x), a whole evaluate against one call at Anthropic's cached prices
(<= 4x).

    python benchmarks/bench_cost.py [--large-kb 40] [--draws 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_cache as bc

PRICED = {"Anthropic": ("anthropic", "claude-sonnet-4-5"), "OpenAI": ("openai", "gpt-5.2"),
          "Gemini": ("google", "gemini-2.5-pro")}  # fmt: skip


@dataclass
class Debate:
    label: str
    calls: list[bc.Seen]
    outputs: list[str]

    @property
    def input_tokens(self) -> int:
        return sum(len(c.schema + c.text) // 4 for c in self.calls)

    @property
    def output_tokens(self) -> int:
        return sum(len(o) // 4 for o in self.outputs)

    def repeated_share(self) -> float:
        """Of the input tokens after the first call, the share that repeats an earlier call's prefix."""
        served = total = 0
        for i, call in enumerate(self.calls[1:], start=1):
            text = call.text
            best = max(bc._common(text, e.text) for e in self.calls[:i])
            served += best // 4
            total += len(text) // 4
        return served / total if total else 0.0

    def cost(self, vendor: str) -> float:
        from moot.engine.pricing import Pricing
        from moot.schemas.messages import Usage

        provider, model = PRICED[vendor]
        usage = Usage()
        systems: set[str] = set()
        for i, (call, out) in enumerate(zip(self.calls, self.outputs, strict=True)):
            tokens = len(call.schema + call.text) // 4
            # a cache serves only what a call of an earlier step wrote: the calls of one step go out together
            earlier = [e for e in self.calls[:i] if e.step != call.step]
            if vendor == "Anthropic":
                system = call.text.split("\x00", 1)[0]
                block = len(system) // 4 if len(system) // 4 >= bc.MIN_CACHEABLE_TOKENS else 0
                read, write = (block, 0) if system in systems else (0, block)
                if i + 1 == len(self.calls) or self.calls[i + 1].step != call.step:  # the step is done
                    systems.update(c.text.split("\x00", 1)[0] for c in self.calls[: i + 1])
            else:
                best = max((bc._common(call.text, e.text) for e in earlier), default=0)
                read, write = bc.cacheable(best), 0
            usage = usage + Usage(input_tokens=tokens, output_tokens=len(out) // 4, cached_tokens=read,
                                  cache_write_tokens=write)  # fmt: skip
        price = Pricing().cost(provider, model, usage)
        return price or 0.0


CLAUDE = "claude-sonnet-4-5"


def one_claude(model: str, base_url: str, **extra: Any) -> dict[str, Any]:
    """A judge on Anthropic's wire (its cache directive on), every seat on one model: `model` is dropped."""
    root = base_url.removesuffix("/v1")
    return {"model": CLAUDE, "provider": "anthropic", "api_base": root, "api_key": "local-bench", **extra}


def no_schema(model: str, base_url: str, **extra: Any) -> dict[str, Any]:
    """A judge on the OpenAI wire with `structured: off`: no reply schema on its requests (what the 1.5x
    target would cost without structured output)."""
    return {**bc._judge(model, base_url, **extra), "structured": "off"}


def moot_debate(protocol: str, artifact: Path, *, claude: bool = False, schema: bool = True) -> Debate:
    """A moot debate against the local server: each judge on its own model on the OpenAI wire (`schema`:
    False, with `structured: off`), or (`claude`, evaluate) three seats on one Claude model on Anthropic's
    wire, where moot sends a primer first."""
    from moot.engine.priming import PRIMER_ASK
    from moot.testing import FakeLLMServer, Reply

    reply = bc.REPLIES[protocol]
    home = Path(tempfile.mkdtemp(prefix="moot-cost-"))
    os.environ["MOOT_HOME"] = str(home)
    outputs: list[str] = []

    def respond(model: str, body: dict[str, Any]) -> Reply:
        user = body["messages"][-1]["content"]
        stance = next((i for i, s in enumerate(STANCES) if f"Your stance: {s} " in user), 0)
        text = "ready" if user == PRIMER_ASK else reply(f"bench-{stance}" if claude else model, user)
        outputs.append(text)
        return Reply(text=text)

    with FakeLLMServer() as server:
        server.responder = respond
        text = artifact.read_text(encoding="utf-8")
        judge = one_claude if claude else (None if schema else no_schema)
        asyncio.run(bc.run_debate(protocol, server.base_url, 3, artifact, home, text, judge))
        calls = [bc.seen(r) for r in server.requests]
    label = f"moot {protocol}" + (", one Claude" if claude else "") + ("" if schema else ", no schema")
    return Debate(label, calls, outputs)


STANCES = ["neutral", "for", "against"]
BARE_SYSTEM = (
    "You are a {stance} judge. Score the artifact for the task on each criterion from 1 to 5, then overall. "
    'Reply as JSON: {{"overall_score": n, "dimension_scores": {{...}}, "reasoning": "..."}}.\n'
    "Task: {task}\nCriteria: {criteria}\n<artifact>\n{artifact}\n</artifact>"
)


def bare_debate(artifact: Path) -> Debate:
    """A 3-judge 3-round evaluate on the OpenAI SDK, prompts written by hand: the reference."""
    import openai

    from moot.testing import FakeLLMServer, Reply

    text = artifact.read_text(encoding="utf-8")
    outputs: list[str] = []
    with FakeLLMServer() as server:

        def respond(model: str, body: dict[str, Any]) -> Reply:
            out = bc.evaluate_reply(model, body["messages"][-1]["content"])
            outputs.append(out)
            return Reply(text=out)

        server.responder = respond

        async def one(client: Any, i: int, ask: str, before: list[str]) -> str:
            system = BARE_SYSTEM.format(stance=STANCES[i], task="Review this code", criteria=bc.CRITERIA, artifact=text)
            others = "\n".join(f"Judge {j}: {r}" for j, r in enumerate(before) if j != i)
            user = f"{ask}\n{others}".rstrip()
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            r = await client.chat.completions.create(model=f"bench-{i}", messages=messages)
            return str(r.choices[0].message.content or "")

        async def run() -> None:
            client = openai.AsyncOpenAI(base_url=server.base_url, api_key="local-bench")
            replies: list[str] = []
            for round_no, ask in ((1, "Round 1 of 3."), (2, "Round 2 of 3: rebut."), (3, "FINAL POSITIONS.")):
                seen_before = [] if round_no == 1 else list(replies)
                replies = list(await asyncio.gather(*(one(client, i, ask, seen_before) for i in range(3))))
            await client.close()

        asyncio.run(run())
        calls = [bc.seen(r) for r in server.requests]
    return Debate("bare SDK evaluate", calls, outputs)


def primers(debate: Debate) -> int:
    """How many primers moot sent in `debate`."""
    return sum(c.step == "primer" for c in debate.calls)


def single(debate: Debate) -> Debate:
    return Debate("one judge, one call", debate.calls[:1], debate.outputs[:1])


def row(d: Debate) -> str:
    costs = "".join(f"{'$' + format(d.cost(v), '.4f'):>12}" for v in PRICED)
    return (f"  {d.label:26}{len(d.calls):>6}{d.input_tokens:>10,}{d.output_tokens:>9,}"
            f"{100 * d.repeated_share():>9.0f}%{costs}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--large-kb", type=int, default=40)
    ap.add_argument("--draws", type=int, default=8, help="report-order draws for the 40 KB evaluate's share")
    args = ap.parse_args()
    import moot

    print(f"moot from {Path(moot.__file__).parent}; 3 judges; tokens are characters / 4")
    artifacts = {"12-line": bc.SMALL, f"{args.large_kb} KB": bc.large_artifact(args.large_kb)}
    ratios: dict[str, float] = {}
    for size, artifact in artifacts.items():
        evaluate, plain, claude, decide, challenge, bare = (
            moot_debate("evaluate", artifact),
            moot_debate("evaluate", artifact, schema=False),
            moot_debate("evaluate", artifact, claude=True),
            moot_debate("decide", artifact),
            moot_debate("challenge", artifact),
            bare_debate(artifact),
        )
        print(f"\n{size} artifact ({len(artifact.read_text(encoding='utf-8')) / 1000:.1f} KB)")
        print(f"  {'':26}{'calls':>6}{'input':>10}{'output':>9}{'repeated':>10}" + "".join(f"{v:>12}" for v in PRICED))
        rows = (evaluate, single(evaluate), plain, claude, decide, single(decide), challenge, single(challenge), bare)
        for d in rows:
            print(row(d))
        ratios[f"{size}: evaluate prompt tokens / bare"] = evaluate.input_tokens / bare.input_tokens
        ratios[f"{size}: evaluate prompt tokens / bare, no schema"] = plain.input_tokens / bare.input_tokens
        ratios[f"{size}: evaluate / one call, Anthropic cached"] = evaluate.cost("Anthropic") / single(evaluate).cost(
            "Anthropic"
        )
        primed = claude.cost("Anthropic") / single(evaluate).cost("Anthropic")
        ratios[f"{size}: evaluate on one Claude model (primer: {primers(claude)}) / one call, Anthropic"] = primed
        ratios[f"{size}: repeated share, evaluate"] = evaluate.repeated_share()
        ratios[f"{size}: repeated share, decide"] = decide.repeated_share()
        ratios[f"{size}: repeated share, challenge"] = challenge.repeated_share()
    shares = sorted(
        moot_debate("evaluate", bc.large_artifact(args.large_kb)).repeated_share() for _ in range(args.draws)
    )
    for name, value in (("min", shares[0]), ("median", shares[len(shares) // 2]), ("max", shares[-1])):
        ratios[f"{args.large_kb} KB: repeated share, evaluate, {name} of {args.draws} draws"] = value
    print("\nagainst the targets:")
    for name, value in ratios.items():
        print(f"  {name:58} {value:.3f}")
    print(json.dumps({k: round(v, 3) for k, v in ratios.items()}))


if __name__ == "__main__":
    main()
