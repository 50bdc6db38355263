"""Planted judges for the statistics of `moot bench` (issue 21): judges whose every answer is known to the
test, served on the local server, so that each figure the bench reports can be recomputed independently.

A planted judge has three parts: what it answers in round 1 (given the question and how many times it has
already been asked that question in round 1, so that vote@equal's extra samples are fresh draws and not
copies), what it does in the rebuttal round (keep its answer, switch to the wrong one, ...), and the
confidence it states. It reads the request as a judge would (the question, options A and B, the round);
which response is right comes from the test's own gold, which the harness never sees.

Scored judges answer evaluate's templates with a fixed score in every round (stubborn).
"""

from __future__ import annotations

import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from moot.testing import Reply

from .replies import round1, round2, round3

_OPTION = re.compile(r'<option id="([^"]+)">\n(.*?)\n</option>', re.DOTALL)
_QUESTION = re.compile(r"<question [^>]*>\n(.*?)\n</question>", re.DOTALL)
_PREVIOUS = re.compile(r"YOUR PREVIOUS RECOMMENDATION: (\S+)")
_OTHERS = re.compile(r"The judges whose positions you challenge: ([^\n]*?)\.\n")
CODE_RUBRIC = ("correctness", "design_quality", "efficiency", "code_quality", "testing")


@dataclass(frozen=True)
class Ask:
    question: str
    options: tuple[str, ...]
    right: str  # the option holding the right response (from the test's gold)
    first: str  # the option shown first

    @property
    def wrong(self) -> str:
        return next(o for o in self.options if o != self.right)


def draw(p: float, *key: object) -> bool:
    """True with probability `p`, from a stream seeded by `key` (the test recomputes the same draws)."""
    return random.Random(":".join(map(str, key))).random() < p


First = Callable[[Ask, int], str]  # (the ask, the n-th round-1 call of this judge on this question in this order)
Rebut = Callable[[Ask, str], str]  # (the ask, its previous recommendation) -> option
Confidence = Callable[[Ask, str], str]  # (the ask, its answer) -> HIGH | MEDIUM | LOW


def right_with(p: float, seed: object) -> First:
    """Right with probability `p`, a fresh draw for every round-1 call on the question (order-independent)."""
    return lambda ask, n: ask.right if draw(p, seed, ask.question, n) else ask.wrong


def always_first(ask: Ask, n: int) -> str:
    return ask.first


def always_right(ask: Ask, n: int) -> str:
    return ask.right


def always_wrong(ask: Ask, n: int) -> str:
    return ask.wrong


def keep(ask: Ask, previous: str) -> str:
    """Stubborn: the rebuttal repeats the round-1 answer."""
    return previous


def sway_to_wrong(ask: Ask, previous: str) -> str:
    """Talked out: whatever it said, the rebuttal gives the wrong answer."""
    return ask.wrong


def high(ask: Ask, choice: str) -> str:
    return "HIGH"


def calibrated(ask: Ask, choice: str) -> str:
    """Perfectly calibrated: HIGH when right, LOW when wrong."""
    return "HIGH" if choice == ask.right else "LOW"


@dataclass(frozen=True)
class Judge:
    first: First
    rebut: Rebut = keep
    confidence: Confidence = high


def _text(body: dict[str, Any]) -> str:
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        parts += [content] if isinstance(content, str) else [c.get("text", "") for c in content or []]
    return "\n".join(parts)


def _reply(data: dict[str, Any]) -> Reply:
    return Reply(text="```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```")


@dataclass
class Planted:
    """The server's responder for pairwise items: `judges[model]` answers for the judge on that model."""

    right_texts: set[str]
    judges: dict[str, Judge]
    asked: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        text = _text(body)
        options = _OPTION.findall(text)
        question = _QUESTION.search(text)
        ids = tuple(o for o, _ in options)
        right = next(o for o, t in options if t in self.right_texts)
        ask = Ask(question.group(1) if question else "", ids, right, ids[0])
        judge = self.judges[model]
        if "ADVERSARIAL" not in text:
            order = (model, ask.question, options[0][1])  # counted per order: both orders draw alike
            with self._lock:
                n = self.asked[order]
                self.asked[order] += 1
            choice = judge.first(ask, n)
            return _reply(self._round1(ask, choice, judge))
        previous = _PREVIOUS.search(text)
        before = previous.group(1) if previous else ask.right
        choice = judge.rebut(ask, before)
        others = _OTHERS.search(text)
        challenged = [o.strip() for o in others.group(1).split(",")] if others else []
        data: dict[str, Any] = {
            "judge": "x",
            "round": 2,
            "challenges": [{"judge": o, "counter_argument": "its check skips a step"} for o in challenged],
            "recommendation": choice,
        }
        if choice != before:
            data |= {"changed": True, "change_reason": "the other judges' check convinced me"}
        data |= {"confidence": judge.confidence(ask, choice), "perspective": "p", "rationale": f"now {choice}"}
        return _reply(data)

    @staticmethod
    def _round1(ask: Ask, choice: str, judge: Judge) -> dict[str, Any]:
        return {
            "judge": "x",
            "round": 1,
            "recommendation": choice,
            "confidence": judge.confidence(ask, choice),
            "perspective": f"{choice} is right",
            "rationale": f"I worked it out: {choice}.",
            "assessment": {o: "checked" for o in ask.options},
        }


def planted(rows: Iterable[dict[str, Any]], judges: dict[str, Judge]) -> Planted:
    return Planted({r["response_A"] if r["label"] == "A>B" else r["response_B"] for r in rows}, judges)


@dataclass
class Stubborn:
    """Scored judges that give the same overall score in every round (`scores[model]`)."""

    scores: dict[str, float]

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        text = _text(body)
        score = self.scores[model]
        dims = dict.fromkeys(CODE_RUBRIC, round(score))
        if "FINAL POSITIONS" in text:
            return Reply(text=round3(score, dims))
        if "REBUTTAL" in text:
            return Reply(text=round2(score, dims, reason="I keep my score"))
        return Reply(text=round1(score, dims))


def judgebench_rows(n: int, a_right: Callable[[int], bool]) -> list[dict[str, Any]]:
    """`n` rows in JudgeBench's own format (pair_id, source, question, response_model, response_A/B, label)."""
    sources = ("mmlu-pro-math", "livebench-reasoning", "livecodebench")
    rows = []
    for i in range(n):
        right, wrong = f"The answer is {3 * i + 7}: worked step by step.", f"The answer is {3 * i + 8}: a guess."
        a = a_right(i)
        rows.append(
            {
                "pair_id": f"jb-{i:04d}",
                "original_id": str(i),
                "source": sources[i % 3],
                "question": f"Pair {i}: what is {i} * 3 + 7?",
                "response_model": "gpt-4o-2024-05-13",
                "response_A": right if a else wrong,
                "response_B": wrong if a else right,
                "label": "A>B" if a else "B>A",
            }
        )
    return rows
