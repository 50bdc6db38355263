"""Host seats in evaluate (seed 003 with sub-agents): `--judges host` runs turn by turn, with no key and no
vendor call; the same replies give the same debate as through the scripted vendor server."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

import moot
from moot.api.history import debate_view
from moot.cli.app import main
from moot.store import Store
from moot.testing import FakeLLMServer

from .host_helpers import comparable, drive
from .replies import CRITERIA, round1, round2, round3

# three judges that disagree in round 1, move in round 2 and settle in round 3
SCRIPT = {
    "judge-1": [round1(4.0, 4), round2(4.0, responses={"C1": "accept"}), round3(4.0, responses={"C1": "accept"})],
    "judge-2": [
        round1(4.8, 5),
        round2(4.5, {"security": 4, "design": 4}, responses={"C1": "reject"}),
        round3(4.2, responses={"C1": "reject"}),
    ],
    "judge-3": [round1(2.5, 2, critical=["no input validation"]), round2(3.5), round3(4.0, responses=None)],
}


def _artifact(tmp_path: Path) -> Path:
    path = tmp_path / "users.ts"
    path.write_text("export function createUser(name: string) { return { id: 1, name }; }\n", encoding="utf-8")
    return path


def test_host_judges_wait_and_a_bad_reply_is_refused_with_its_request_pending(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    state = moot.evaluate_sync(
        str(_artifact(tmp_path)), criteria=CRITERIA, judges="host", reports_dir=None, store=store
    )
    assert state.status == "waiting"
    assert [(r["seat"], r["role"], r["round"], r["phase"]) for r in state.requests] == [
        ("judge-1", "neutral", 1, "round_1"),
        ("judge-2", "for", 1, "round_1"),
        ("judge-3", "against", 1, "round_1"),
    ]
    first = state.requests[0]
    assert set(first) == {"request_id", "seat", "role", "round", "phase", "system", "prompt", "schema"}
    assert "createUser" in first["system"] and "INDEPENDENT ANALYSIS" in first["prompt"]
    assert first["schema"]["type"] == "object" and "overall_score" in first["schema"]["properties"]

    good = {"seat": "judge-2", "reply": SCRIPT["judge-2"][0]}
    with pytest.raises(moot.errors.UsageError, match=r"judge-1: .*no YAML or JSON block"):
        moot.submit_replies_sync(
            state.debate_id, [{"seat": "judge-1", "reply": "I think it is fine."}, good], store=store
        )
    row = store.require_debate(state.debate_id)
    assert row.status == "waiting"
    shown = debate_view(store, row)
    # judge-2's reply was read and kept, so it is no longer pending; judge-1's request (and judge-3's) is
    assert [r["seat"] for r in shown["requests"]] == ["judge-1", "judge-3"]
    assert [c.call_key for c in store.calls(row.id)] == ["r1/judge-2"]
    with pytest.raises(moot.errors.UsageError, match="seat judge-2 has no pending request"):  # kept, not replaced
        moot.submit_replies_sync(state.debate_id, [{"seat": "judge-2", "reply": SCRIPT["judge-1"][0]}], store=store)
    state = moot.submit_replies_sync(
        state.debate_id,
        [
            {"seat": "judge-1", "reply": SCRIPT["judge-1"][0]},
            {"request_id": "r1/judge-3", "reply": SCRIPT["judge-3"][0]},
        ],
        store=store,
    )
    assert state.status == "waiting" and [r["round"] for r in state.requests] == [2, 2, 2]
    assert "no input validation" in state.requests[0]["prompt"]  # the round-2 prompt quotes round 1


def test_a_reply_for_no_pending_request_is_bad_input(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    state = moot.evaluate_sync(
        str(_artifact(tmp_path)), criteria=CRITERIA, judges="host", reports_dir=None, store=store
    )
    with pytest.raises(moot.errors.UsageError, match="seat judge-9 has no pending request"):
        moot.submit_replies_sync(state.debate_id, [{"seat": "judge-9", "reply": "x"}], store=store)
    mismatched = {"seat": "judge-2", "request_id": "r1/judge-1", "reply": SCRIPT["judge-1"][0]}
    with pytest.raises(moot.errors.UsageError, match="request r1/judge-1 is seat judge-1's, not judge-2's"):
        moot.submit_replies_sync(state.debate_id, [mismatched], store=store)
    huge = "overall_score: 4\n" + "x" * 4_000_001
    with pytest.raises(moot.errors.UsageError, match="over 4,000,000 bytes"):
        moot.submit_replies_sync(state.debate_id, [{"seat": "judge-1", "reply": huge}], store=store)
    assert store.calls(state.debate_id) == []  # nothing of the refused replies was stored
    assert moot.cancel_debate(state.debate_id, store=store)["status"] == "cancelled"
    with pytest.raises(moot.errors.UsageError, match="not waiting for host replies"):
        moot.submit_replies_sync(state.debate_id, [{"seat": "judge-1", "reply": SCRIPT["judge-1"][0]}], store=store)
    with pytest.raises(moot.errors.UsageError, match="was cancelled: nothing continues it"):
        moot.resume_sync(state.debate_id, store=store)
    assert store.require_debate(state.debate_id).status == "cancelled"


def _vendor_run(tmp_path: Path, server: FakeLLMServer) -> dict[str, Any]:
    for n, seat in enumerate(SCRIPT, 1):
        server.script(f"m{n}", *SCRIPT[seat])
    panel = tmp_path / "vendors.yaml"
    judges = [
        {"model": f"m{n}", "stance": stance, "api_base": server.base_url}
        for n, stance in enumerate(["neutral", "for", "against"], 1)
    ]
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    result = moot.evaluate_sync(str(_artifact(tmp_path)), criteria=CRITERIA, judges=str(panel), reports_dir=None)
    data: dict[str, Any] = result.model_dump(mode="json")
    return data


def test_the_same_replies_give_the_same_debate_through_host_seats_and_vendors(tmp_path: Path) -> None:
    with FakeLLMServer() as server:
        vendor = _vendor_run(tmp_path, server)
    state = moot.evaluate_sync(str(_artifact(tmp_path)), criteria=CRITERIA, judges="host", reports_dir=None)
    result, steps = drive(state, SCRIPT, moot.submit_replies_sync)
    host = result.model_dump(mode="json")
    assert steps == 3 and host["rounds_completed"] == vendor["rounds_completed"] == 3
    for key in ("summary", "rounds", "judges", "critical_findings", "debate_effect", "majority", "minority"):
        if key in vendor:
            assert comparable(host[key], host["debate_id"]) == comparable(vendor[key], vendor["debate_id"]), key
    assert comparable(host, host["debate_id"]) == comparable(vendor, vendor["debate_id"])
    # the reports a person reads are the same too (the terminal's and GitHub's), but for ids, model labels and
    # the spend table (a host reply costs no tokens)
    vendor_result = moot.EvaluationResult.model_validate(vendor)
    for fmt in ("text", "github"):
        h = _report(result, fmt, host["debate_id"], r"\bhost\b")
        assert h == _report(vendor_result, fmt, vendor["debate_id"], r"\bm[123]\b"), fmt


def _report(result: Any, fmt: str, debate_id: str, labels: str) -> str:
    from moot.cli.gate import render

    text = render("evaluate", result, fmt).replace(debate_id, "<id>").replace(debate_id[:8], "<id>")
    text = text.split("| Spend |")[0]  # what was spent differs: a host reply costs no tokens
    text = re.sub(r"[0-9]+ input / [0-9]+ output tokens · \$[0-9.]+ · [0-9.]+s", "<spend>", text)
    return re.sub(labels, "<model>", text)


def test_cli_flow_waiting_reply_show_list_and_cancel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    art = _artifact(tmp_path)
    assert (
        main(
            [
                "evaluate",
                "--solution",
                str(art),
                "--criteria",
                CRITERIA,
                "--judges",
                "host",
                "--no-reports",
                "--format",
                "json",
            ]
        )
        == 0
    )
    state = json.loads(capsys.readouterr().out)
    debate_id = state["debate_id"]
    assert state["status"] == "waiting" and [r["seat"] for r in state["requests"]] == ["judge-1", "judge-2", "judge-3"]
    bad = tmp_path / "bad.md"
    bad.write_text("no block here", encoding="utf-8")
    assert main(["reply", debate_id, "--seat", "judge-1", "--file", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith("moot: error: reply refused, still pending: judge-1:")
    assert err.count("moot: error") == 1 and "Traceback" not in err
    for seat in ("judge-1", "judge-2"):
        (tmp_path / f"{seat}.md").write_text(SCRIPT[seat][0], encoding="utf-8")
        assert (
            main(["reply", debate_id, "--seat", seat, "--file", str(tmp_path / f"{seat}.md"), "--format", "json"]) == 0
        )
    capsys.readouterr()
    assert main(["show", debate_id, "--format", "json"]) == 0
    outs = capsys.readouterr().out
    shown = json.loads(outs)
    assert shown["status"] == "waiting" and [r["seat"] for r in shown["requests"]] == ["judge-3"]
    assert main(["show", debate_id]) == 0
    assert "waiting for 1 host reply" in capsys.readouterr().out
    assert main(["list"]) == 0
    assert "(waiting for judge-3)" in capsys.readouterr().out
    assert main(["cancel", debate_id]) == 0
    assert "cancelled" in capsys.readouterr().out
    assert main(["list", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["debates"][0]
    assert listed["status"] == "cancelled" and "waiting_for" not in listed


SYNTHESIS = (
    "majority_opinion: All agree it is solid.\nrecommendations:\n  - priority: SHOULD\n    action: Add tests\n"
    "self_critique: {questions_passed: 5/5, synthesis_quality: HIGH, potential_bias: none}\n"
)


def test_a_mixed_panel_with_a_host_moderator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One host judge and two vendor judges; `--moderator host`: the host writes the synthesis (seed 001)."""
    with FakeLLMServer() as server:
        server.script("m2", round1(4.0, 4))
        server.script("m3", round1(4.0, 4))
        judges = [{"host": True, "stance": "neutral"}] + [
            {"model": m, "stance": s, "api_base": server.base_url} for m, s in (("m2", "for"), ("m3", "against"))
        ]
        panel = tmp_path / "mixed.yaml"
        panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
        args = ["evaluate", "-s", str(_artifact(tmp_path)), "--criteria", CRITERIA, "--judges", str(panel)]
        assert main([*args, "--moderator", "host", "--no-reports", "--format", "json"]) == 0
        state = json.loads(capsys.readouterr().out)
        assert [r["seat"] for r in state["requests"]] == ["judge-1"]  # the vendors answered already
        assert len(server.requests) == 2
        (tmp_path / "r.md").write_text(round1(4.0, 4), encoding="utf-8")
        assert (
            main(["reply", state["debate_id"], "--seat", "judge-1", "--file", str(tmp_path / "r.md"), "-f", "json"])
            == 0
        )
        state = json.loads(capsys.readouterr().out)
        assert [(r["seat"], r["round"]) for r in state["requests"]] == [("moderator", 0)]
        assert "majority_opinion" in state["requests"][0]["schema"]["properties"]
        (tmp_path / "m.md").write_text(SYNTHESIS, encoding="utf-8")
        assert (
            main(["reply", state["debate_id"], "--seat", "moderator", "--file", str(tmp_path / "m.md"), "-f", "json"])
            == 0
        )
        out = json.loads(capsys.readouterr().out)
    assert out["synthesis_by"] == "moderator:host" and out["majority_opinion"] == "All agree it is solid."
    assert out["summary"]["final_verdict"] == "PASS" and out["rounds_completed"] == 1


def test_sub_agents_submitting_at_once_continue_the_debate_once(tmp_path: Path) -> None:
    """Three sub-agents each submit their own reply at the same moment (as an MCP server serves them): the
    step is continued once, with all three, and the next step asked once."""
    store = Store(tmp_path / "m.db")

    async def run() -> list[Any]:
        state = await moot.evaluate(
            str(_artifact(tmp_path)), criteria=CRITERIA, judges="host", reports_dir=None, store=store
        )
        each = [moot.submit_replies(state.debate_id, [{"seat": s, "reply": SCRIPT[s][0]}], store=store) for s in SCRIPT]
        return list(await asyncio.gather(*each))

    answers = asyncio.run(run())
    assert [len(a.requests) for a in answers] == [2, 1, 3]  # the last submit finished round 1: round 2's requests
    assert {r["round"] for r in answers[-1].requests} == {2}
    keys = [c.call_key for c in store.attempts(answers[-1].debate_id)]
    assert sorted(keys) == ["r1/judge-1", "r1/judge-2", "r1/judge-3"]  # each reply stored once
