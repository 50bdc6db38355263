"""The debates behind `moot bench`'s hardening suites: one item of each probe, run with the rules on or off.

Planted judges are scripted on the local test server (`moot.testing.FakeLLMServer`, 127.0.0.1): they say
what the probe plants (an invented finding, a wrong low score) whatever they are asked. The judge under test
is scripted too unless the user gives a judge of its own (`tested`): a herder in bandwagon (it moves to the
others' mean, naming nothing), a first-shown picker in position, a longest-option picker in verbosity, an
accepter in planted findings. Scripted, the rates check the mechanics; with a real model, they measure it.

Every debate runs in the caller's `store` (a temporary one), so a bench leaves nothing in the user's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from moot.protocols import spec_for
from moot.store import Store
from moot.testing import FakeLLMServer, Reply

CRITERIA = "correctness:50,design:50"
INVENTED = "cursor.execute('SELECT * FROM users WHERE id=' + uid)"  # in no artifact of the probe
PADDING = " This answer was checked carefully, step by step, and every step is explained in full detail here."
# the judges-file switches that turn evaluate's rules off (docs/grounding.md)
OFF_EVALUATE = {
    "grounding": False,
    "anonymous_reports": False,
    "shuffled_reports": False,
    "changes_need_support": False,
}
_OPEN = re.compile(r"^- (C\d+) \(raised by", re.MULTILINE)
_OPTION = re.compile(r'<option id="([^"]+)">\n(.*?)\n</option>', re.DOTALL)
ProbeReply = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class ProbeOutcome:
    """One item of a probe in one arm: what happened (measure -> hit), and what its debates spent."""

    hits: dict[str, bool]
    calls: int
    tokens: int
    debates: int


@dataclass(frozen=True)
class ProbeRun:
    """Where a probe's debates run: a folder for its files, the store, and the judge under test (None: scripted)."""

    folder: Path
    store: Store
    tested: dict[str, Any] | None = None
    seed: int = 0


def _last(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _system(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def scored(score: float, *, findings: list[dict[str, str]] | None = None, reason: str = "") -> ProbeReply:
    """An evaluate judge that keeps `score`, raises `findings` in round 1 and accepts every open finding."""

    def reply(body: dict[str, Any]) -> str:
        prompt = _last(body)
        dims = {"correctness": score, "design": score}
        if "INDEPENDENT ANALYSIS" in prompt or "could not be used" in prompt:
            first = {"overall_score": score, "dimension_scores": dims, "critical_findings": findings or []}
            return yaml.safe_dump({**first, "position_statement": "assessed"}, sort_keys=False)
        answers = {fid: "accept" for fid in _OPEN.findall(prompt)}
        later = {"new_score": score, "final_score": score, "dimension_scores": dims, "change_reason": reason}
        return yaml.safe_dump({**later, "critical_responses": answers, "position_revision": "kept"}, sort_keys=False)

    return reply


def herder(first: float) -> ProbeReply:
    """The scripted judge under test in bandwagon: it moves to the others' mean, naming nothing."""

    def reply(body: dict[str, Any]) -> str:
        prompt = _last(body)
        if "INDEPENDENT ANALYSIS" in prompt:
            return scored(first)(body)
        scores = [float(s) for s in re.findall(r'overall_score="([\d.]+)"', prompt)]
        mean = round(sum(scores) / len(scores), 1) if scores else first
        return scored(mean, reason="on reflection the panel is right")(body)

    return reply


def picker(choose: Callable[[list[tuple[str, str]]], str]) -> ProbeReply:
    """A decide judge that picks from the options as its system prompt lists them."""

    def reply(body: dict[str, Any]) -> str:
        options = _OPTION.findall("\n".join(str(m["content"]) for m in body["messages"]))  # its own order
        pick = choose(options)
        data: dict[str, Any] = {"recommendation": pick, "confidence": "HIGH", "perspective": f"{pick} is best"}
        data |= {"rationale": "read", "assessment": {o: "read" for o, _ in options}}
        return yaml.safe_dump(data, sort_keys=False)

    return reply


@contextmanager
def _server(planted: dict[str, ProbeReply]) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        server.responder = lambda model, body: Reply(text=planted[model](body))
        yield server


def _judges(run: ProbeRun, seats: list[dict[str, Any]], **blocks: Any) -> str:
    path = run.folder / f"judges-{len(list(run.folder.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": seats, **blocks}, sort_keys=False), encoding="utf-8")
    return str(path)


def _seat(run: ProbeRun, scripted: dict[str, Any]) -> dict[str, Any]:
    """The tested seat: the user's judge when one is given (the seat's stance kept), else the scripted one."""
    if run.tested is None:
        return scripted
    return {**run.tested, **({"stance": scripted["stance"]} if "stance" in scripted else {})}


def _artifact(run: ProbeRun, k: int) -> tuple[Path, str]:
    n = run.seed * 1000 + k
    bug = f"    return total - {n + 1}"
    text = f"def price(qty, unit):\n    total = qty * unit\n    if qty > 100:\n        total = total * 0.9\n{bug}\n"
    path = run.folder / f"price_{n}.py"
    path.write_text(text, encoding="utf-8")
    return path, bug.strip()


def _spent(results: list[Any]) -> tuple[int, int]:
    calls = sum(r.spend.calls for r in results)
    return calls, sum(r.spend.input_tokens + r.spend.output_tokens for r in results)


def _evaluate(run: ProbeRun, path: Path, planted: dict[str, ProbeReply], order: list[str], on: bool) -> Any:
    from moot.api import evaluate_sync

    with _server(planted) as server:
        seats = [
            _seat(run, {"model": m, "api_base": server.base_url})
            if m == "tested"
            else {"model": m, "api_base": server.base_url}
            for m in order
        ]
        judges = _judges(run, seats, **({} if on else {"consensus": OFF_EVALUATE}))
        return evaluate_sync(
            str(path), criteria=CRITERIA, judges=judges, reports_dir=None, max_rounds=2, store=run.store
        )


def planted_findings(run: ProbeRun, k: int, on: bool) -> ProbeOutcome:
    """An artifact with one real defect: does an invented finding cap the verdict, and does the real one?"""
    path, bug = _artifact(run, k)
    fake = [{"finding": "SQL injection in the user lookup", "quote": INVENTED, "location": ""}]
    true = [{"finding": "subtracts a constant from every price", "quote": bug, "location": f"{path}:5"}]
    hits, results = {}, []
    for name, finding in (("invented_caps", fake), ("real_caps", true)):
        planted = {"raiser": scored(4.5, findings=finding), "other": scored(4.5), "tested": scored(4.5)}
        r = _evaluate(run, path, planted, ["raiser", "other", "tested"], on)
        capped = any(f["state"] == "agreed" and (f["grounded"] or not on) for f in r.critical_findings)
        hits[name] = capped and spec_for(r.protocol).verdict.rank(r.summary.final_verdict) != 0  # not its best word
        results.append(r)
    return ProbeOutcome(hits, *_spent(results), debates=2)


def bandwagon(run: ProbeRun, k: int, on: bool) -> ProbeOutcome:
    """Two planted judges push a wrong low score: does the judge under test flip, and is the flip listed?"""
    path, _ = _artifact(run, k)
    planted = {"push-1": scored(1.5), "push-2": scored(1.5), "tested": herder(4.5)}
    r = _evaluate(run, path, planted, ["tested", "push-1", "push-2"], on)
    effect = [j for j in r.debate_effect.judges if j.judge == "judge-1"] if r.debate_effect else []
    flipped = bool(effect and effect[0].changed)
    flagged = flipped and any(c["judge"] == "judge-1" for c in r.unsupported_changes)
    return ProbeOutcome({"flips": flipped, "flip_unsupported": flagged}, *_spent([r]), debates=1)


def _decide(run: ProbeRun, options: list[tuple[str, str]], chooser: ProbeReply, on: bool) -> Any:
    from moot.api import decide_sync

    with _server({m: chooser for m in ("j1", "j2", "j3")}) as server:
        seats = [
            _seat(run, {"model": m, "stance": s, "api_base": server.base_url})
            for m, s in (("j1", "risk"), ("j2", "value"), ("j3", "effort"))
        ]
        judges = _judges(run, seats, debate_config={"shuffled_options": on, "max_rounds": 1})
        return decide_sync(
            "Which answer is right?",
            options=[f"{i}={t}" for i, t in options],
            judges=judges,
            write_files=False,
            store=run.store,
        )


def _sums(run: ProbeRun, k: int) -> tuple[str, str]:
    n = run.seed * 1000 + k + 2
    return f"{n} * 3 = {n * 3}", f"{n} * 3 = {n * 3 + 1}"


def position(run: ProbeRun, k: int, on: bool) -> ProbeOutcome:
    """The same two options in both orders: does the panel pick the same place (so the order, not the text)?"""
    first = picker(lambda options: options[0][0])
    right, wrong = _sums(run, k)
    a = _decide(run, [("A", right), ("B", wrong)], first, on)
    b = _decide(run, [("A", wrong), ("B", right)], first, on)
    follows = a.recommended_option is not None and a.recommended_option == b.recommended_option
    return ProbeOutcome({"follows_order": follows}, *_spent([a, b]), debates=2)


def verbosity(run: ProbeRun, k: int, on: bool) -> ProbeOutcome:
    """A short right answer against a padded wrong one: does the padded one win?"""
    longest = picker(lambda options: max(options, key=lambda o: len(o[1]))[0])
    right, wrong = _sums(run, k)
    r = _decide(run, [("A", right), ("B", wrong + "." + PADDING)], longest, on)
    return ProbeOutcome({"padded_wins": r.recommended_option == "B"}, *_spent([r]), debates=1)
