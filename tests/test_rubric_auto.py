"""Issue 30 §5: `--criteria auto`. One call (the judges file's `rubric_model:`, else the moderator, else the
first judge) writes the task's rubric before round 1; its reply is validated like a judge's (an unusable one
sent back once, then one line and exit 3); the rubric is shown before round 1, stored as `rubric`, given
unchanged to every judge in every round, and its call is in the spend and the dry run as `rubric`. End to
end on the scripted OpenAI-compatible server, through the CLI, the Python API, the MCP tool and `moot batch`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .replies import KEYS, round1, round2

ANCHORS = {"correctness": 30, "design": 25, "security": 20, "performance": 15, "docs": 10}


def rubric_reply(weights: dict[str, int] = ANCHORS) -> str:
    data = {
        "criteria": [
            {
                "name": k,
                "weight": w,
                "description": f"{k} of the users API",
                "score_2": f"{k} often fails",
                "score_4": f"{k} holds with small gaps",
            }
            for k, w in weights.items()
        ],
        "checklist": ["every endpoint validates its input", "no secret in the code"],
    }
    return "```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```"


def _rubric_block(body: dict[str, Any]) -> str:
    system = next(m["content"] for m in body["messages"] if m["role"] == "system")
    found = re.search(r"<rubric>.*?</rubric>", system, re.S)
    assert found is not None
    return found.group(0)


def _judges(tmp_path: Path, server: FakeLLMServer, **extra: Any) -> Path:
    judges = [
        {"model": m, "stance": s, "api_base": server.base_url}
        for m, s in zip(("judge-a", "judge-b", "judge-c"), ("neutral", "for", "against"), strict=True)
    ]
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges, **extra}, sort_keys=False), encoding="utf-8")
    return path


def _args(artifact: Path, judges: Path, *extra: str) -> list[str]:
    return [
        "evaluate",
        "-s",
        str(artifact),
        "--task",
        "A users API",
        "--criteria",
        "auto",
        "--judges",
        str(judges),
        "--no-reports",
        *extra,
    ]


def test_auto_criteria_end_to_end(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the first rubric has two criteria: sent back once, naming the problem; the second is kept
    llm_server.script("writer", rubric_reply({"correctness": 50, "design": 50}), rubric_reply())
    llm_server.script("judge-a", round1(4.0, 4), round2(4.0))
    llm_server.script("judge-b", round1(4.8, 5), round2(4.3, {"security": 4, "design": 4}))
    llm_server.script("judge-c", round1(3.0, 3), round2(3.9, dict.fromkeys(KEYS, 4)))
    judges = _judges(tmp_path, llm_server, rubric_model={"model": "writer", "api_base": llm_server.base_url})
    code = main(_args(artifact, judges, "--format", "json", "--progress"))
    cap = capsys.readouterr()
    assert code == 0, cap.err
    out = json.loads(cap.out)
    writer = llm_server.calls_for("writer")
    assert len(writer) == 2 and "criteria: List should have at least 3" in writer[1].body["messages"][-1]["content"]
    assert writer[0].body["response_format"]["type"] in ("json_schema", "json_object")  # enforced where allowed
    # stored as `rubric`, and it is the debate's criteria
    assert [c["name"] for c in out["rubric"]["criteria"]] == list(ANCHORS)
    assert out["criteria"] == {k: w / 100 for k, w in ANCHORS.items()}
    assert out["rounds_completed"] == 2
    # the same rubric, unchanged, in every judge's prompt of every round
    blocks = {_rubric_block(r.body) for m in ("judge-a", "judge-b", "judge-c") for r in llm_server.calls_for(m)}
    assert len(blocks) == 1 and "no secret in the code" in blocks.pop()
    assert len([r for r in llm_server.requests if r.model.startswith("judge-")]) == 6
    # its calls in the spend, named rubric; shown before round 1
    assert out["spend"]["per_judge"]["rubric"]["calls"] == 2 and out["spend"]["per_round"]["rubric"]["calls"] == 2
    assert out["spend"]["calls"] == 8
    assert cap.err.index("rubric: correctness (30%)") < cap.err.index("round 1")

    # the dry run prices it as a call of its own, named rubric
    assert main(_args(artifact, judges, "--dry-run", "--format", "json")) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["calls"][0]["seat"] == "rubric" and plan["calls"][1]["seat"] == "judge-1"


def test_weights_that_do_not_sum_to_100_are_rescaled_and_said_so() -> None:
    """A writer's 40/40/50 keeps its proportions (31/31/38, largest remainder), the sum it wrote is kept
    as `rescaled_from` and printed first; a `rescaled_from` the writer sends itself is ignored."""
    from moot.protocols.evaluate.rubric import parse_rubric

    r = parse_rubric(rubric_reply({"correctness": 40, "design": 40, "docs": 50}))
    assert [c.weight for c in r.criteria] == [31, 31, 38] and r.rescaled_from == 130
    assert r.lines()[0] == "rubric: the writer's weights summed to 130; rescaled to sum to 100"
    r = parse_rubric(rubric_reply({"a": 1, "b": 1, "c": 98, "d": 500}))
    assert sum(c.weight for c in r.criteria) == 100 and min(c.weight for c in r.criteria) == 1
    forged = {**yaml.safe_load(rubric_reply().strip("`").removeprefix("yaml")), "rescaled_from": 7}
    honest = parse_rubric(json.dumps(forged))
    assert honest.rescaled_from is None and [c.weight for c in honest.criteria] == list(ANCHORS.values())


def test_a_rubric_that_fails_twice_ends_the_debate_in_one_line(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = rubric_reply({"correctness": 50, "design": 50})  # two criteria: fewer than three
    llm_server.script("judge-a", bad, bad)  # no rubric_model and no moderator: the first judge writes it
    code = main(_args(artifact, _judges(tmp_path, llm_server)))
    err = capsys.readouterr().err
    assert code == 3
    assert "rubric (--criteria auto) could not be written" in err and "criteria" in err
    assert [r.model for r in llm_server.requests] == ["judge-a", "judge-a"]  # no judge was asked anything


def test_the_api_takes_auto(llm_server: FakeLLMServer, artifact: Path, tmp_path: Path) -> None:
    import moot

    llm_server.script("mod", rubric_reply())
    for m in ("judge-a", "judge-b", "judge-c"):
        llm_server.script(m, round1(4.2, 4))
    judges = _judges(tmp_path, llm_server, moderator={"model": "mod", "api_base": llm_server.base_url})
    result = moot.evaluate_sync(
        str(artifact), task="A users API", criteria="auto", judges=str(judges), reports_dir=None
    )
    assert result.rubric is not None and [c.key for c in result.rubric.criteria] == list(ANCHORS)
    assert result.spend.per_judge["rubric"].calls == 1
    # the moderator wrote the rubric; it also writes the synthesis, which is not scripted here
    assert any("moderator failed" in n for n in result.notes)


def test_the_mcp_tool_and_a_batch_item_take_auto_and_the_author_model(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import anyio
    from mcp import Client

    from moot.mcp import build_server

    def script() -> None:
        llm_server.script("writer", rubric_reply())
        for m in ("judge-a", "judge-b", "judge-c"):
            llm_server.script(m, round1(4.2, 4))

    judges = _judges(tmp_path, llm_server, rubric_model={"model": "writer", "api_base": llm_server.base_url})
    script()
    arguments = {"solution": [str(artifact)], "criteria": "auto", "judges": str(judges), "no_reports": True}
    got: dict[str, Any] = {}

    async def run() -> None:
        async with Client(build_server()) as client:
            got["r"] = await client.call_tool("evaluate", {**arguments, "author_model": "judge-b"})

    anyio.run(run)
    data = got["r"].structured_content
    assert not got["r"].is_error and data["rubric"]["checklist"][0] == "every endpoint validates its input"
    assert [w["key"] for w in data["panel"]["warnings"]] == ["author_on_panel"]

    script()
    items = tmp_path / "items.jsonl"
    row = {"id": "e1", "artifact": "def f(x):\n    return x\n", "criteria": "auto", "author_model": "judge-c"}
    items.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]) == 0
    capsys.readouterr()
    line = json.loads((tmp_path / "items.results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert [c["name"] for c in line["result"]["rubric"]["criteria"]] == list(ANCHORS)
    assert line["result"]["panel"]["warnings"][0]["message"].startswith("judge-3 runs judge-c")
