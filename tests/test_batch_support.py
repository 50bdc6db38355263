"""Judges, items files and a responder for the `moot batch` tests (no tests here).

The responder answers every protocol's judges on the local server from the request itself, so that a
batch of any size needs no scripting: an item's own words choose its verdict ("WEAK" fails an
evaluation, "prefer B" recommends B), and a model named `broken-*` always answers HTTP 400.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import opening, verdict
from .replies import CRITERIA, round1
from .test_decide_support import r1

EVALUATE_MODELS = ("ev-neutral", "ev-for", "ev-against")
DECIDE_MODELS = {"risk": "risk-m", "value": "value-m", "effort": "effort-m"}


class Responder:
    """Answers like a judge of whichever protocol asks, after `delay` seconds (or `delays[model]`)."""

    def __init__(self, delay: float = 0.0, delays: dict[str, float] | None = None) -> None:
        self.delay = delay
        self.delays = delays or {}

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        reply = self._reply(model, body)
        reply.delay = self.delays.get(model, reply.delay)
        return reply

    def _reply(self, model: str, body: dict[str, Any]) -> Reply:
        if model.startswith("broken"):
            return Reply(status=400, raw_body=json.dumps({"error": {"message": "this judge is broken"}}))
        text = json.dumps(body)
        if model.startswith("ev-"):
            score = 2.0 if "WEAK" in text else 4.0
            return Reply(text=round1(score, round(score)), delay=self.delay)
        if model in DECIDE_MODELS.values():
            return Reply(text=r1("B" if "prefer B" in text else "A"), delay=self.delay)
        if model == "prop-m":
            return Reply(text=opening(), delay=self.delay)
        return Reply(text=verdict("agree", "minor"), delay=self.delay)


def serve(server: FakeLLMServer, delay: float = 0.0, delays: dict[str, float] | None = None) -> FakeLLMServer:
    server.responder = Responder(delay, delays)
    return server


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def judges_for(protocol: str, tmp_path: Path, server: FakeLLMServer, *, broken: bool = False) -> Path:
    """A judges file of `protocol` on the local server (every judge `broken-*` when `broken`)."""

    def model(name: str) -> dict[str, Any]:
        return {"model": f"broken-{name}" if broken else name, "api_base": server.base_url}

    name = tmp_path / f"{protocol}{'-broken' if broken else ''}-judges.yaml"
    if protocol == "evaluate":
        stances = ("neutral", "for", "against")
        return _write(
            name, {"debate_judges": [{**model(m), "stance": s} for m, s in zip(EVALUATE_MODELS, stances, strict=True)]}
        )
    if protocol == "decide":
        return _write(name, {"debate_judges": [{**model(m), "stance": s} for s, m in DECIDE_MODELS.items()]})
    return _write(name, {"proponent": model("prop-m"), "challengers": [model("chal-1"), model("chal-2")]})


def item(protocol: str, n: int, *, other: bool = False) -> dict[str, Any]:
    """Item `n` of `protocol`; `other` gives it the other verdict (FAIL, B)."""
    if protocol == "evaluate":
        text = f"def f{n}(x):\n    return x + {n}\n" + ("# WEAK\n" if other else "")
        return {"id": f"e{n}", "artifact": text, "task": f"add {n}", "criteria": CRITERIA}
    if protocol == "decide":
        question = f"Which cache for service {n}?" + (" We prefer B." if other else "")
        return {"id": f"d{n}", "question": question, "options": {"A": "Redis", "B": "Memcached"}}
    return {"id": f"c{n}", "topic": f"Shard table {n} by customer id"}


def write_items(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_results(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
