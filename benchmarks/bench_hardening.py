"""Benchmark: do grounded findings and the anti-herding rules change what a panel concludes, at equal cost?

Four probes, each run with the rules on (moot's default) and off (the judges-file switches), each rate printed
with its 95% Wilson interval and the calls per debate (the cost):

- planted findings (evaluate): an artifact with one real defect. A planted judge invents a CRITICAL finding
  whose quote the artifact does not hold; in a second panel an honest judge raises the real defect with a
  real quote. How often the invented finding caps the verdict, and how often the real one still does.
- bandwagon (evaluate): two planted judges push a wrong low score; how often the third judge flips its
  verdict, and how often the flip is listed as an unsupported change.
- position (decide): the same two options in both orders; how often the panel's choice follows the order.
- verbosity (decide): a short right option against a padded wrong one; how often the padded one wins.

The planted judges are scripted on the local test server. The judge under test is scripted too by default
(a herder in bandwagon, a first-shown picker in position, a longest-option picker in verbosity): the rates
then check the mechanics, not a model. `--local` puts SmolLM2 (llama-cpp-python, `moot[local]`) in the tested
seats instead: its rates are noisy, the mechanics are real.

    python benchmarks/bench_hardening.py [--items 20] [--probes planted,bandwagon,position,verbosity] [--local]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

import moot
from moot.bench.stats import wilson
from moot.testing import FakeLLMServer, Reply

CRITERIA = "correctness:50,design:50"
INVENTED = "cursor.execute('SELECT * FROM users WHERE id=' + uid)"  # in no artifact of the probe
_OPEN = re.compile(r"^- (C\d+) \(raised by", re.MULTILINE)
_OPTION = re.compile(r'<option id="([^"]+)">\n(.*?)\n</option>', re.DOTALL)
OFF_EVALUATE = {
    "grounding": False,
    "anonymous_reports": False,
    "shuffled_reports": False,
    "changes_need_support": False,
}


@dataclass
class Rate:
    hits: int = 0
    n: int = 0
    calls: int = 0

    def add(self, hit: bool, calls: int) -> None:
        self.hits, self.n, self.calls = self.hits + hit, self.n + 1, self.calls + calls

    def line(self, what: str) -> str:
        lo, hi = wilson(self.hits, self.n) if self.n else (0.0, 0.0)
        per = self.calls / self.n if self.n else 0.0
        share = self.hits / max(1, self.n)
        return f"  {what:<44} {self.hits:>3}/{self.n:<3} = {share:.2f}  [{lo:.2f}, {hi:.2f}]  {per:.1f} calls"


def _last(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _scored(score: float, *, findings: list[dict[str, str]] | None = None, reason: str = "") -> Callable[..., str]:
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


def _herder(first: float) -> Callable[..., str]:
    """The scripted judge under test in bandwagon: it moves to the others' mean, naming nothing."""

    def reply(body: dict[str, Any]) -> str:
        prompt = _last(body)
        if "INDEPENDENT ANALYSIS" in prompt:
            return _scored(first)(body)
        scores = [float(s) for s in re.findall(r'overall_score="([\d.]+)"', prompt)]
        mean = round(sum(scores) / len(scores), 1) if scores else first
        return _scored(mean, reason="on reflection the panel is right")(body)

    return reply


def _picker(choose: Callable[[list[tuple[str, str]]], str]) -> Callable[..., str]:
    """A decide judge that picks from the options as its prompt lists them (in the order drawn for it)."""

    def reply(body: dict[str, Any]) -> str:
        options = _OPTION.findall("\n".join(str(m["content"]) for m in body["messages"]))
        pick = choose(options)
        data = {"recommendation": pick, "confidence": "HIGH", "perspective": f"{pick} is best", "rationale": "read"}
        data["assessment"] = {o: "read" for o, _ in options}
        return yaml.safe_dump(data, sort_keys=False)

    return reply


@contextmanager
def _server(planted: dict[str, Callable[..., str]]) -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        server.responder = lambda model, body: Reply(text=planted[model](body))
        yield server


def _judges(folder: Path, seats: list[dict[str, Any]], **blocks: Any) -> str:
    path = folder / f"judges-{len(list(folder.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": seats, **blocks}, sort_keys=False), encoding="utf-8")
    return str(path)


def _artifact(folder: Path, k: int) -> tuple[Path, str]:
    bug = f"    return total - {k + 1}"
    text = f"def price(qty, unit):\n    total = qty * unit\n    if qty > 100:\n        total = total * 0.9\n{bug}\n"
    path = folder / f"price_{k}.py"
    path.write_text(text, encoding="utf-8")
    return path, bug.strip()


def planted(folder: Path, items: int, local: str | None) -> list[str]:
    out = ["planted findings (evaluate): does a finding cap the verdict?"]
    for on in (True, False):
        invented, real = Rate(), Rate()
        for k in range(items):
            path, bug = _artifact(folder, k)
            fake = [{"finding": "SQL injection in the user lookup", "quote": INVENTED, "location": ""}]
            true = [{"finding": "subtracts a constant from every price", "quote": bug, "location": f"{path}:5"}]
            for finding, rate in ((fake, invented), (true, real)):
                planted_seats = {"raiser": _scored(4.5, findings=finding), "other": _scored(4.5)}
                with _server({**planted_seats, "tested": _scored(4.5)}) as server:
                    seats = [{"model": m, "api_base": server.base_url} for m in ("raiser", "other", "tested")]
                    if local:
                        seats[2] = {"model": "smollm2", "api_base": local, "max_tokens": 768, "timeout": 1500}
                    judges = _judges(folder, seats, **({} if on else {"consensus": OFF_EVALUATE}))
                    r = moot.evaluate_sync(str(path), criteria=CRITERIA, judges=judges, reports_dir=None, max_rounds=2)
                capped = any(f["state"] == "agreed" and (f["grounded"] or not on) for f in r.critical_findings)
                rate.add(capped and r.summary.final_verdict != "PASS", r.spend.calls)
        label = "on " if on else "off"
        out += [
            invented.line(f"grounding {label}: invented finding caps"),
            real.line(f"grounding {label}: real finding caps"),
        ]
    return out


def bandwagon(folder: Path, items: int, local: str | None) -> list[str]:
    out = ["bandwagon (evaluate): two judges push a wrong FAIL; does the third flip?"]
    for on in (True, False):
        flips, flagged = Rate(), Rate()
        for k in range(items):
            path, _ = _artifact(folder, k)
            pushers = {"push-1": _scored(1.5), "push-2": _scored(1.5), "tested": _herder(4.5)}
            with _server(pushers) as server:
                seats = [{"model": m, "api_base": server.base_url} for m in ("tested", "push-1", "push-2")]
                if local:
                    seats[0] = {"model": "smollm2", "api_base": local, "max_tokens": 768, "timeout": 1500}
                judges = _judges(folder, seats, **({} if on else {"consensus": OFF_EVALUATE}))
                r = moot.evaluate_sync(str(path), criteria=CRITERIA, judges=judges, reports_dir=None, max_rounds=2)
            [effect] = [j for j in r.debate_effect.judges if j.judge == "judge-1"] if r.debate_effect else [None]
            flipped = bool(effect and effect.changed)
            flips.add(flipped, r.spend.calls)
            flagged.add(flipped and any(c["judge"] == "judge-1" for c in r.unsupported_changes), r.spend.calls)
        label = "rules on " if on else "rules off"
        out += [
            flips.line(f"{label}: the third judge flips"),
            flagged.line(f"{label}: its flip is listed as unsupported"),
        ]
    return out


def _decide(
    folder: Path, options: list[tuple[str, str]], chooser: Callable[..., str], on: bool, local: str | None
) -> Any:
    with _server({m: chooser for m in ("j1", "j2", "j3")}) as server:
        seats = [
            {"model": m, "stance": s, "api_base": server.base_url}
            for m, s in (("j1", "risk"), ("j2", "value"), ("j3", "effort"))
        ]
        if local:
            seats = [{**s, "model": "smollm2", "api_base": local, "max_tokens": 320, "timeout": 1500} for s in seats]
        judges = _judges(folder, seats, debate_config={"shuffled_options": on, "max_rounds": 1})
        return moot.decide_sync(
            "Which answer is right?", options=[f"{i}={t}" for i, t in options], judges=judges, write_files=False
        )


def position(folder: Path, items: int, local: str | None) -> list[str]:
    out = ["position (decide): the same two options in both orders; does the choice follow the order?"]
    first = _picker(lambda options: options[0][0])
    for on in (True, False):
        follows = Rate()
        for k in range(items):
            right, wrong = f"{k + 2} * 3 = {(k + 2) * 3}", f"{k + 2} * 3 = {(k + 2) * 3 + 1}"
            a = _decide(folder, [("A", right), ("B", wrong)], first, on, local)
            b = _decide(folder, [("A", wrong), ("B", right)], first, on, local)
            same_place = a.recommended_option is not None and a.recommended_option == b.recommended_option
            follows.add(same_place, a.spend.calls + b.spend.calls)
        out.append(follows.line(f"per-judge option order {'on ' if on else 'off'}: follows the order"))
    return out


def verbosity(folder: Path, items: int, local: str | None) -> list[str]:
    out = ["verbosity (decide): a short right answer against a padded wrong one; does the padded one win?"]
    longest = _picker(lambda options: max(options, key=lambda o: len(o[1]))[0])
    padding = " This answer was checked carefully, step by step, and every step is explained in full detail here."
    for on in (True, False):
        padded = Rate()
        for k in range(items):
            right, wrong = f"{k + 2} * 3 = {(k + 2) * 3}", f"{k + 2} * 3 = {(k + 2) * 3 + 1}.{padding}"
            r = _decide(folder, [("A", right), ("B", wrong)], longest, on, local)
            padded.add(r.recommended_option == "B", r.spend.calls)
        out.append(padded.line(f"per-judge option order {'on ' if on else 'off'}: padded wins"))
    return out


PROBES = {"planted": planted, "bandwagon": bandwagon, "position": position, "verbosity": verbosity}


def run(items: int, probes: list[str], local: str | None = None) -> list[str]:
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in probes:
            lines += [*PROBES[name](Path(tmp), items, local), ""]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--probes", default=",".join(PROBES))
    parser.add_argument("--local", action="store_true", help="SmolLM2 in the tested seats (needs moot[local])")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    probes = [p.strip() for p in args.probes.split(",") if p.strip()]
    unknown = [p for p in probes if p not in PROBES]
    if unknown:
        print(f"unknown probe(s): {', '.join(unknown)} (known: {', '.join(PROBES)})", file=sys.stderr)
        return 2
    with ExitStack() as stack:
        local = None
        if args.local:
            from moot.testing.local_server import llama_server

            local = stack.enter_context(llama_server())
        lines = run(args.items, probes, local)
    print(json.dumps(lines) if args.json else "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
