"""Judges of known behaviour for the `moot bench` tests, answering on the local server (no tests here).

A judge reads its request as a judge would (the question, options A and B, the round) and answers by its
behaviour: always A, always right, always wrong, right with probability p from a seeded stream, or wrong
in round 1 and right in round 2. To know which response is right it uses the test's own gold (the texts
of the right responses), which the harness never sees: the harness gets only the judges file.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from moot.testing import FakeLLMServer, Reply

from .replies import round1
from .test_decide_support import r1, r2

CODE_RUBRIC = ("correctness", "design_quality", "efficiency", "code_quality", "testing")  # evaluate's default
_OPTION = re.compile(r'<option id="([^"]+)">\n(.*?)\n</option>', re.DOTALL)
_QUESTION = re.compile(r"<question [^>]*>\n(.*?)\n</question>", re.DOTALL)
_OTHERS = re.compile(r"The judges whose positions you challenge: ([^\n]*?)\.\n")
_PREVIOUS = re.compile(r"YOUR PREVIOUS RECOMMENDATION: (\S+)")


@dataclass(frozen=True)
class Ask:
    question: str
    options: dict[str, str]
    round: int
    right: str  # the id of the option holding the right response (from the test's gold)

    @property
    def wrong(self) -> str:
        return next(o for o in self.options if o != self.right)


Behaviour = Callable[[Ask], str]


def always_a(ask: Ask) -> str:
    return "A"


def always_right(ask: Ask) -> str:
    return ask.right


def always_wrong(ask: Ask) -> str:
    return ask.wrong


def seeded_right(question: str, p: float, seed: int) -> bool:
    """Whether a judge right with probability `p` is right on `question`: a seeded stream per item, so
    that a test can count the same draws."""
    return random.Random(f"{seed}:{question}").random() < p


def right_with(p: float, seed: int) -> Behaviour:
    return lambda ask: ask.right if seeded_right(ask.question, p, seed) else ask.wrong


def changes_mind(on: str) -> Behaviour:
    """Wrong in round 1 and right in round 2 on questions holding `on`; right everywhere else."""
    return lambda ask: (ask.wrong if ask.round == 1 else ask.right) if on in ask.question else ask.right


def broken_on(on: str, otherwise: Behaviour) -> Behaviour:
    """HTTP 400 on questions holding `on` (the judge is dropped), `otherwise` elsewhere."""
    return lambda ask: BROKEN if on in ask.question else otherwise(ask)


BROKEN = "broken"


def _text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        parts += [content] if isinstance(content, str) else [c.get("text", "") for c in content or []]
    return "\n".join(parts)


class Panel:
    """The server's responder: `behaviours[model]` answers for the judge on that model."""

    def __init__(
        self, right_texts: Iterable[str], behaviours: dict[str, Behaviour], usage: tuple[int, int] | None = None
    ) -> None:
        self.right_texts = set(right_texts)
        self.behaviours = behaviours
        self.usage = usage  # (input, output) tokens every reply reports, for costs worked out by hand

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        reply = self._reply(model, body)
        if self.usage is not None:
            reply.input_tokens, reply.output_tokens = self.usage
        return reply

    def _reply(self, model: str, body: dict[str, Any]) -> Reply:
        text = _text(body)
        if "overall_score" in text:  # an evaluate judge: option A is PASS (4.5), B is FAIL (2.0)
            right = "A" if any(t in text for t in self.right_texts) else "B"
            choice = self.behaviours[model](Ask(text[:200], {"A": "PASS", "B": "FAIL"}, 1, right))
            score = 4.5 if choice == "A" else 2.0
            return Reply(text=round1(score, dict.fromkeys(CODE_RUBRIC, round(score))))
        ask = self._ask(text)
        choice = self.behaviours[model](ask)
        if choice == BROKEN:
            return Reply(status=400, raw_body=json.dumps({"error": {"message": "this judge is broken here"}}))
        if ask.round == 1:
            return Reply(text=r1(choice))
        others = _OTHERS.search(text)
        challenge = {o.strip(): "its reasoning skips a step" for o in (others.group(1).split(",") if others else [])}
        previous = _PREVIOUS.search(text)
        changed = previous is not None and previous.group(1) != choice
        return Reply(text=r2(choice, challenge=challenge, reason="convinced by the others' check" if changed else None))

    def _ask(self, text: str) -> Ask:
        options = dict(_OPTION.findall(text))
        question = _QUESTION.search(text)
        right = next((o for o, t in options.items() if t in self.right_texts), "A")
        return Ask(question.group(1) if question else text[:200], options, 2 if "ADVERSARIAL" in text else 1, right)


def pairs(n: int, a_right: Callable[[int], bool], **extra: Any) -> list[dict[str, Any]]:
    """`n` pairwise gold items; item i's label is A>B when `a_right(i)`."""
    rows = []
    for i in range(n):
        right, wrong = f"{2 * i} (worked out for item {i})", f"{2 * i + 1} (guessed for item {i})"
        a = a_right(i)
        rows.append(
            {
                "id": f"q{i}",
                "question": f"Item {i}: what is {i} + {i}?",
                "response_A": right if a else wrong,
                "response_B": wrong if a else right,
                "label": "A>B" if a else "B>A",
                **extra,
            }
        )
    return rows


def right_texts(rows: Iterable[dict[str, Any]]) -> set[str]:
    """The right response of every pairwise (or multiple-choice) gold row (what the scripted judges are told,
    not the harness)."""
    return {
        r["options"][r["answer"]] if "options" in r else r["response_A"] if r["label"] == "A>B" else r["response_B"]
        for r in rows
    }


def choices(n: int, answer: Callable[[int], str], ids: str = "ABCD") -> list[dict[str, Any]]:
    """`n` multiple-choice gold items with options `ids`; item i's right option is `answer(i)`."""
    rows = []
    for i in range(n):
        right = answer(i)
        options = {
            o: f"{10 * i + k} ({'worked out' if o == right else 'guessed'} for item {i})" for k, o in enumerate(ids)
        }
        rows.append(
            {"id": f"m{i}", "question": f"Item {i}: pick the right value.", "options": options, "answer": right}
        )
    return rows


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def judges_file(tmp_path: Path, server: FakeLLMServer, models: Iterable[str], **extra: Any) -> Path:
    """A judges file of `models` on the local server; no stance, so the bench gives each its own."""
    data = {"debate_judges": [{"model": m, "api_base": server.base_url} for m in models], **extra}
    path = tmp_path / "bench-judges.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def serve(
    server: FakeLLMServer,
    rows: Iterable[dict[str, Any]],
    behaviours: dict[str, Behaviour],
    usage: tuple[int, int] | None = None,
) -> FakeLLMServer:
    server.responder = Panel(right_texts(rows), behaviours, usage)
    return server
