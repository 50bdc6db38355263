"""Issue 30 §5 with host seats: when the rubric writer of `--criteria auto` is a host seat (`--judges host`
and no other writer, `rubric_model: host`, a host moderator), the rubric call is itself a host request. The
debate first waits for it alone (seat and role `rubric`, round 0, phase `rubric`, the very system, prompt and
schema a vendor would be sent); the reply is read by the rubric's own parser (a bad one refused with its
reason, the request kept); then round 1's requests follow, each carrying the written rubric."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import moot
from moot.api.history import debate_view
from moot.cli.app import main
from moot.protocols.evaluate.task_rubric import rubric_schema
from moot.store import Store
from moot.testing import FakeLLMServer

from .replies import round1
from .test_host_evaluate import SYNTHESIS

WEIGHTS = {"correctness": 30, "design": 25, "security": 20, "performance": 15, "docs": 10}
CHECK = "every endpoint validates its input"


def rubric(weights: dict[str, int] = WEIGHTS) -> str:
    criteria = [
        {"name": k, "weight": w, "description": f"{k} of the API", "score_2": "often fails", "score_4": "holds"}
        for k, w in weights.items()
    ]
    return yaml.safe_dump({"criteria": criteria, "checklist": [CHECK]}, sort_keys=False)


def _artifact(tmp_path: Path) -> Path:
    path = tmp_path / "users.ts"
    path.write_text("export function createUser(name: string) { return { id: 1, name }; }\n", encoding="utf-8")
    return path


def _block(system: str) -> str:
    found = re.search(r"<rubric>.*?</rubric>", system, re.S)
    assert found is not None, "the judge's system prompt carries no rubric"
    return found.group(0)


def _assert_rubric_request(requests: list[dict[str, Any]], artifact: str = "createUser") -> None:
    """Exactly one request: the rubric's, as a vendor writer would be asked it."""
    assert [(r["seat"], r["role"], r["round"], r["phase"], r["request_id"]) for r in requests] == [
        ("rubric", "rubric", 0, "rubric", "rubric")
    ]
    request = requests[0]
    assert request["system"].startswith("You write concise, task-specific scoring rubrics")
    assert "Write the rubric" in request["prompt"] and "A users API" in request["prompt"]
    assert artifact in request["prompt"]
    assert request["schema"] == rubric_schema()


def test_host_judges_write_the_rubric_first_and_every_judge_gets_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "m.db")
    state = moot.evaluate_sync(
        str(_artifact(tmp_path)), task="A users API", criteria="auto", judges="host", reports_dir=None, store=store
    )
    assert state.status == "waiting"
    _assert_rubric_request(state.requests)

    # a rubric of two criteria is refused at once with the parser's reason; the request is kept
    with pytest.raises(
        moot.errors.UsageError, match=r"^reply refused, still pending: rubric: criteria: List should have at least 3"
    ):
        moot.submit_replies_sync(
            state.debate_id, [{"seat": "rubric", "reply": rubric({"correctness": 50, "design": 50})}], store=store
        )
    row = store.require_debate(state.debate_id)
    assert row.status == "waiting" and store.calls(row.id) == []
    _assert_rubric_request(debate_view(store, row)["requests"])

    state = moot.submit_replies_sync(state.debate_id, [{"request_id": "rubric", "reply": rubric()}], store=store)
    assert state.status == "waiting"
    assert [(r["seat"], r["role"], r["round"]) for r in state.requests] == [
        ("judge-1", "neutral", 1),
        ("judge-2", "for", 1),
        ("judge-3", "against", 1),
    ]
    blocks = {_block(r["system"]) for r in state.requests}
    assert len(blocks) == 1 and CHECK in blocks.pop()  # the same rubric, unchanged, for every judge

    result = moot.submit_replies_sync(
        state.debate_id, [{"seat": r["seat"], "reply": round1(4.2, 4)} for r in state.requests], store=store
    )
    assert result.status == "finished" and result.summary.final_verdict == "PASS"
    assert result.rubric is not None and [c.key for c in result.rubric.criteria] == list(WEIGHTS)
    assert result.criteria == {k: w / 100 for k, w in WEIGHTS.items()}
    assert result.spend.per_judge["rubric"].calls == 1
    assert [c.call_key for c in store.calls(row.id)] == ["rubric", "r1/judge-1", "r1/judge-2", "r1/judge-3"]


def test_cli_reply_seat_rubric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evaluate", "-s", str(_artifact(tmp_path)), "--task", "A users API", "--criteria", "auto"]
    assert main([*args, "--judges", "host", "--no-reports", "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert state["status"] == "waiting"
    _assert_rubric_request(state["requests"])
    debate_id = state["debate_id"]

    two = tmp_path / "two.yaml"
    two.write_text(rubric({"correctness": 50, "design": 50}), encoding="utf-8")
    assert main(["reply", debate_id, "--seat", "rubric", "--file", str(two)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "moot: error: reply refused, still pending: rubric: criteria: List should have at least 3" in err
    assert main(["show", debate_id]) == 0
    assert "rubric (rubric), round 0, rubric: request rubric" in capsys.readouterr().out

    good = tmp_path / "rubric.yaml"
    good.write_text(rubric(), encoding="utf-8")
    assert main(["reply", debate_id, "--seat", "rubric", "--file", str(good), "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert [r["seat"] for r in state["requests"]] == ["judge-1", "judge-2", "judge-3"]
    assert all(CHECK in _block(r["system"]) for r in state["requests"])
    reply = tmp_path / "judge.yaml"
    reply.write_text(round1(4.2, 4), encoding="utf-8")
    for seat in ("judge-1", "judge-2", "judge-3"):
        assert main(["reply", debate_id, "--seat", seat, "--file", str(reply), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
    assert out["summary"]["final_verdict"] == "PASS"
    assert [c["name"] for c in out["rubric"]["criteria"]] == list(WEIGHTS)


@pytest.mark.parametrize(
    ("extra", "flags"),
    [({"rubric_model": "host"}, []), ({}, ["--moderator", "host"])],
    ids=["rubric_model", "moderator"],
)
def test_a_host_writer_before_vendor_judges(
    llm_server: FakeLLMServer,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: dict[str, str],
    flags: list[str],
) -> None:
    """`rubric_model: host`, else a host moderator (`--moderator host` too) writes the rubric: vendor judges
    are asked nothing until it is given, then each is sent it."""
    judges = [
        {"model": m, "stance": s, "api_base": llm_server.base_url}
        for m, s in zip(("judge-a", "judge-b", "judge-c"), ("neutral", "for", "against"), strict=True)
    ]
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges, **extra}), encoding="utf-8")
    for m in ("judge-a", "judge-b", "judge-c"):
        llm_server.script(m, round1(4.2, 4))
    args = ["evaluate", "-s", str(_artifact(tmp_path)), "--task", "A users API", "--criteria", "auto", *flags]
    assert main([*args, "--judges", str(path), "--no-reports", "--format", "json"]) == 0
    state = json.loads(capsys.readouterr().out)
    _assert_rubric_request(state["requests"])
    assert llm_server.requests == []  # no judge is asked before the rubric is written

    good = tmp_path / "rubric.yaml"
    good.write_text(rubric(), encoding="utf-8")
    assert main(["reply", state["debate_id"], "--seat", "rubric", "--file", str(good), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    if flags:  # the host moderator also writes the synthesis after the last round
        assert [r["seat"] for r in out["requests"]] == ["moderator"]
        (tmp_path / "m.md").write_text(SYNTHESIS, encoding="utf-8")
        assert (
            main(["reply", out["debate_id"], "--seat", "moderator", "--file", str(tmp_path / "m.md"), "-f", "json"])
            == 0
        )
        out = json.loads(capsys.readouterr().out)
    assert out["summary"]["final_verdict"] == "PASS" and out["rubric"]["checklist"] == [CHECK]
    systems = [next(m["content"] for m in r.body["messages"] if m["role"] == "system") for r in llm_server.requests]
    assert len(systems) == 3 and all(CHECK in _block(s) for s in systems)


def test_mcp_evaluate_auto_with_host_judges(tmp_path: Path) -> None:
    """Over MCP (the SDK's in-memory client): `criteria: "auto"`, `judges: "host"` waits for the rubric, a bad
    one is a tool error with its reason, and `submit_replies` with a good one brings round 1's requests."""
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    got: dict[str, Any] = {}

    async def run() -> None:
        async with Client(build_server()) as client:
            arguments = {"solution": [str(_artifact(tmp_path))], "task": "A users API", "criteria": "auto"}
            first = await client.call_tool("evaluate", {**arguments, "judges": "host", "no_reports": True})
            got["first"] = first.structured_content
            debate_id = got["first"]["debate_id"]
            bad = [{"seat": "rubric", "reply": "a rubric? correctness matters most"}]
            got["bad"] = await client.call_tool("submit_replies", {"debate_id": debate_id, "replies": bad})
            good = [{"seat": "rubric", "reply": rubric()}]
            got["next"] = await client.call_tool("submit_replies", {"debate_id": debate_id, "replies": good})

    anyio.run(run)
    _assert_rubric_request(got["first"]["requests"])
    assert got["bad"].is_error and "still pending: rubric:" in str(got["bad"].content)
    state = got["next"].structured_content
    assert [r["seat"] for r in state["requests"]] == ["judge-1", "judge-2", "judge-3"]
    assert all(CHECK in _block(r["system"]) for r in state["requests"])
