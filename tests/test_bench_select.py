"""`select`, the best-of-N baseline, against scripted judges whose best candidate is known: the panel's
round-1 answers are the candidates, and the first seat picks one in one extra call, counted at its cost."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from moot.bench.runner import run_bench
from moot.bench.suites import load_suite
from moot.errors import UsageError
from moot.testing import FakeLLMServer, Reply

from .bench_judges import (
    Ask,
    Behaviour,
    Panel,
    _text,
    always_wrong,
    choices,
    judges_file,
    pairs,
    write_jsonl,
)

_CANDIDATE = re.compile(r'<candidate id="([^"]+)">\nAnswer: (.*?)\n')
MODELS = ("judge-a", "judge-b", "judge-c")


class Picking(Panel):
    """The panel of bench_judges, and a picker that knows which candidate holds the right answer: it picks
    that one (or, with `first`, always the first candidate shown)."""

    def __init__(
        self, rows: list[dict[str, Any]], behaviours: dict[str, Behaviour], *, first: bool = False, bare: bool = False
    ) -> None:
        from .bench_judges import right_texts

        super().__init__(right_texts(rows), behaviours, usage=(100, 20))
        self.first, self.bare = first, bare  # bare: the pick is the candidate's id alone, as a small model says it

    def _reply(self, model: str, body: dict[str, Any]) -> Reply:
        text = _text(body)
        if "CANDIDATE ANSWERS" not in text:
            return super()._reply(model, body)
        shown = dict(_CANDIDATE.findall(text))
        right = next((c for c, t in shown.items() if t in self.right_texts), None)
        choice = next(iter(shown)) if self.first or right is None else right
        return Reply(text=choice if self.bare else json.dumps({"choice": choice, "why": "its reasoning checks out"}))


def right_on_even(ask: Ask) -> str:
    return ask.right if int(re.findall(r"Item (\d+)", ask.question)[0]) % 2 == 0 else ask.wrong


PRICES = {m: {"input_per_mtok": 1.0, "output_per_mtok": 5.0} for m in MODELS}


def _bench(
    tmp_path: Path, server: FakeLLMServer, rows: list[dict[str, Any]], *, first: bool = False, bare: bool = False
) -> Any:
    # judge-a (the picker) and judge-c are always wrong in round 1; judge-b is right on even items only
    behaviours = dict(zip(MODELS, [always_wrong, right_on_even, always_wrong], strict=True))
    server.responder = Picking(rows, behaviours, first=first, bare=bare)
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    return asyncio.run(
        run_bench(
            suite,
            judges=judges_file(tmp_path, server, MODELS, pricing=PRICES),
            strategies=("single", "vote", "select"),
        )
    )


def test_select_finds_the_one_right_candidate_the_vote_outvotes(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    rows = choices(8, lambda i: "ABCD"[i % 4])
    run = _bench(tmp_path, llm_server, rows)
    r = run.result
    assert r is not None and run.failed == 0
    assert r.strategies["vote"].accuracy == 0.0  # two wrong judges agree on one wrong option everywhere
    select = r.strategies["select"]
    # even items: the right candidate is there and the picker takes it, in both orders; odd items: every
    # judge's answer is wrong, one candidate only, no pick to make (no call) and the answer is wrong
    assert select.accuracy == 0.5 and select.accuracy_given_order == 0.5
    assert [p.answers["select"] for p in r.per_item] == [
        row["answer"] if i % 2 == 0 else p.answers["vote"]
        for i, (row, p) in enumerate(zip(rows, r.per_item, strict=True))
    ]
    assert select.calls_per_item == 3.5  # round 1's three calls, and one pick on half the items
    assert select.tokens_per_item == 3.5 * 120
    # every call (the picks too) at the judges file's prices: 100 tokens in at $1, 20 out at $5 per million
    assert select.cost_per_item == pytest.approx(3.5 * (100 * 1.0 + 20 * 5.0) / 1e6)
    assert select.position is not None and select.position.judgments == 16
    picks = [q for q in llm_server.requests if "CANDIDATE ANSWERS" in json.dumps(q.body)]
    assert len(picks) == 4 * 2 and {q.model for q in picks} == {"judge-a"}  # the first seat, both orders
    assert len(llm_server.requests) == 8 * 2 * 3 + 8
    # the candidates carry the reasoning each judge gave, delimited
    assert "Reasoning given:\\n- Long reasoning for" in json.dumps(picks[0].body)
    # select against single and vote is in the verdict's comparison
    assert "select" in r.verdict
    # running again sends nothing: the picks are kept beside the run
    before = len(llm_server.requests)
    again = _bench(tmp_path, llm_server, rows)
    assert len(llm_server.requests) == before
    assert again.result.strategies["select"].accuracy == 0.5


def test_the_pick_is_sent_its_schema_and_a_bare_candidate_id_is_read_as_the_pick(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    """The pick goes with a schema whose `choice` can only be a candidate (a server that enforces it, as a
    local one does, keeps a small model to the candidates), and a picker answering the id alone (`B`, as
    SmolLM2 did without one) has picked it, not failed."""
    rows = choices(4, lambda i: "ABCD"[i % 4])
    run = _bench(tmp_path, llm_server, rows, bare=True)
    assert run.result is not None and run.result.strategies["select"].accuracy == 0.5  # as with JSON picks
    picks = [q.body for q in llm_server.requests if "CANDIDATE ANSWERS" in json.dumps(q.body)]
    assert picks
    for body in picks:
        schema = body["response_format"]["json_schema"]["schema"]
        shown = re.findall(r'<candidate id=\\"(\w+)\\">', json.dumps(body["messages"]))
        assert schema["properties"]["choice"]["enum"] == shown and len(shown) == 2


def test_a_picker_that_takes_the_first_candidate_is_only_as_good_as_its_position(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(6, lambda i: i % 2 == 0)
    run = _bench(tmp_path, llm_server, rows, first=True)
    r = run.result
    assert r is not None
    select = r.strategies["select"]
    # on even items the candidates are both responses; the first shown is right in one order only
    assert select.accuracy == 0.0
    assert select.position is not None and select.position.first_share is not None
    assert select.swap_consistency is not None and select.swap_consistency < 1.0


def test_select_on_scored_items_is_bad_input(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    rows = [{"id": "s1", "task": "add", "artifact": "def add(a, b): return a - b", "gold": "fail"}]
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    with pytest.raises(UsageError, match="select picks among the options"):
        asyncio.run(run_bench(suite, judges=judges_file(tmp_path, llm_server, MODELS), strategies=("select",)))
    assert llm_server.requests == []


def test_the_dry_run_counts_one_pick_per_item_and_order_at_most(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    from moot.cli.app import main

    gold = write_jsonl(tmp_path / "gold.jsonl", choices(4, lambda i: "ABCD"[i]))
    judges = judges_file(tmp_path, llm_server, MODELS)
    figures = {}
    for strategies in ("single,vote", "single,vote,select"):
        args = ["bench", str(gold), "--judges", str(judges), "--strategies", strategies, "--dry-run", "-f", "json"]
        assert main(args) == 0
        figures[strategies] = json.loads(capsys.readouterr().out)
    plain, picked = figures["single,vote"], figures["single,vote,select"]
    assert picked["select_picks_at_most"] == 4 * 2 and plain["select_picks_at_most"] == 0
    assert picked["calls"]["high"] == plain["calls"]["high"] + 8
    assert picked["calls"]["low"] == plain["calls"]["low"]  # round 1 agreeing needs no pick
    assert picked["typical_usd"]["high"] >= plain["typical_usd"]["high"]
    assert llm_server.requests == []
