"""Seed 004 as written: `challenge --proponent host`. The host (the coding agent) states the opening, the
scripted vendor challengers attack it at once, the host answers every objection; CONSENSUS or TRADEOFF.
The same replies give the same debate as a vendor proponent's."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

import moot
from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import assumptions, confront, opening, rebuttal, verdict, write_judges
from .host_helpers import comparable, drive

TOPIC = "Should we shard the orders table by customer id?"

CONSENSUS = {
    "proponent": [
        opening(),
        confront({"O1": "ACCEPT", "O2": "PARTIAL", "O3": "REJECT"}, "Shard by customer id behind a routing layer"),
    ],
    "challenger-1": [
        verdict("disagree", "strong", ["hot customers overload one shard", "resharding is costly"]),
        rebuttal("ACCEPT"),
    ],
    "challenger-2": [verdict("partial", "minor", ["reports need a replica"]), rebuttal("ACCEPT")],
}
TRADEOFF = {
    "proponent": [
        opening(),
        confront({"O1": "REJECT"}, "Shard orders by customer id"),
        assumptions("the skew is manageable", "a customer above 5% of writes", ["no customer above 5% of writes"]),
    ],
    "challenger-1": [verdict("agree", "minor")],
    "challenger-2": [
        verdict("disagree", "strong", ["one whale customer saturates its shard"]),
        rebuttal("MAINTAIN"),
        assumptions("the skew is not bounded", "a year with no whale", ["the largest customer keeps growing"]),
    ],
}


def _challengers(server: FakeLLMServer, script: dict[str, list[str]], delay: float = 0.0) -> list[dict[str, Any]]:
    for n in (1, 2):
        server.script(f"ch-{n}", *[Reply(text=t, delay=delay) for t in script[f"challenger-{n}"]])
    return [{"model": f"ch-{n}", "api_base": server.base_url} for n in (1, 2)]


def _host_run(tmp_path: Path, script: dict[str, list[str]], **kwargs: Any) -> tuple[Any, FakeLLMServer, int]:
    with FakeLLMServer() as server:
        challengers = _challengers(server, script, kwargs.pop("delay", 0.0))
        state = moot.challenge_sync(TOPIC, proponent="host", challengers=challengers, **kwargs)
        assert state.status == "waiting" and state.requests[0]["seat"] == "proponent"
        assert state.requests[0]["phase"] == "opening" and state.requests[0]["role"] in ("neutral", "proponent")
        only_host = {"proponent": script["proponent"]}
        result, steps = drive(state, only_host, moot.submit_replies_sync)
        return result, server, steps


def _vendor_run(script: dict[str, list[str]], **kwargs: Any) -> Any:
    with FakeLLMServer() as server:
        challengers = _challengers(server, script)
        server.script("prop", *script["proponent"])
        return moot.challenge_sync(
            TOPIC, proponent={"model": "prop", "api_base": server.base_url}, challengers=challengers, **kwargs
        )


@pytest.mark.parametrize(("script", "outcome", "rounds"), [(CONSENSUS, "CONSENSUS", 1), (TRADEOFF, "TRADEOFF", 1)])
def test_host_proponent_ends_as_a_vendor_proponent_would(
    tmp_path: Path, script: dict[str, list[str]], outcome: str, rounds: int
) -> None:
    result, _, steps = _host_run(tmp_path, script, max_rounds=1)
    host = result.model_dump(mode="json")
    assert host["outcome"] == outcome and host["rounds"] == rounds
    assert steps == len(script["proponent"])  # one host turn per proponent reply
    assert host["position_history"][0]["version"] == 1
    vendor = _vendor_run(script, max_rounds=1).model_dump(mode="json")
    assert comparable(host, host["debate_id"]) == comparable(vendor, vendor["debate_id"])


def test_the_challengers_of_a_round_run_concurrently(tmp_path: Path) -> None:
    started = time.monotonic()
    result, server, _ = _host_run(tmp_path, CONSENSUS, max_rounds=1, delay=0.6)
    assert result.outcome == "CONSENSUS"
    first = [r.at for r in server.requests if r.body["messages"][-1]["content"].count("<objection") == 0][:2]
    # both challengers were asked before either answered (each takes 0.6 s)
    assert len(first) == 2 and abs(first[0] - first[1]) < 0.4
    assert time.monotonic() - started < 4 * 0.6 + 2.5  # two rounds of calls side by side, not four in a row


def test_cli_parity_the_seed_004_flow_from_a_shell(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeLLMServer() as server:
        challengers = _challengers(server, CONSENSUS)
        judges = write_judges(tmp_path / "j.yaml", {"model": "unused"}, challengers)
        args = ["challenge", TOPIC, "--judges", str(judges), "--proponent", "host", "--format", "json"]
        assert main(args) == 0
        state = json.loads(capsys.readouterr().out)
        debate_id = state["debate_id"]
        for reply in CONSENSUS["proponent"]:
            assert main(["show", debate_id, "--format", "json"]) == 0
            shown = json.loads(capsys.readouterr().out)
            assert shown["status"] == "waiting" and [r["seat"] for r in shown["requests"]] == ["proponent"]
            (tmp_path / "reply.md").write_text(reply, encoding="utf-8")
            assert (
                main(["reply", debate_id, "--seat", "proponent", "--file", str(tmp_path / "reply.md"), "-f", "json"])
                == 0
            )
            out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "CONSENSUS" and out["final_position"] == "Shard by customer id behind a routing layer"
    assert main(["show", debate_id]) == 0
    assert "DEBATE OUTCOME: CONSENSUS" in capsys.readouterr().out
